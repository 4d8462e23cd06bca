// Rewrites one root attribute of an HDF5 file in place, as a hostile user with h5py would:
// `h5attr FILE NAME VALUE`. A numeric attribute takes VALUE parsed as a double (nan, inf, -1,
// 4.6e18; an integer attribute gets the value cast), a fixed-length text attribute VALUE as
// text (cut to its length). The attribute keeps its type. Exit 0 on success. Used by
// tests/hostile/corpus.sh to tamper with checkpoints, tests/h5compare_check.sh with formats.
#include <hdf5.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: h5attr FILE NAME VALUE\n");
    return 2;
  }
  const double value = std::strtod(argv[3], nullptr);
  const hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return 1;
  const hid_t attr = H5Aopen(file, argv[2], H5P_DEFAULT);
  if (attr < 0) return 1;
  const hid_t type = H5Aget_type(attr);
  herr_t status;
  if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0) {
    std::string text(argv[3]);
    text.resize(H5Tget_size(type), '\0');
    status = H5Awrite(attr, type, text.data());
  } else if (H5Tget_class(type) == H5T_INTEGER) {
    const std::int64_t v = std::isfinite(value) ? static_cast<std::int64_t>(value) : 0;
    status = H5Awrite(attr, H5T_NATIVE_INT64, &v);
  } else {
    status = H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
  }
  H5Tclose(type);
  H5Aclose(attr);
  H5Fclose(file);
  return status < 0 ? 1 : 0;
}
