// h5compare A.h5 B.h5: exit 0 when two snapshots hold the same values (every dataset of
// rho, u, v, w, p, and the attributes time, step, grid, origin, spacing), bit for bit;
// otherwise print the first difference and exit 1. Byte-identical files are not asked
// for: a collective write lays the file out differently from a serial one.
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool read(hid_t file, const char* name, bool attribute, std::vector<double>& out) {
  const hid_t obj = attribute ? H5Aopen(file, name, H5P_DEFAULT) : H5Dopen2(file, name, H5P_DEFAULT);
  if (obj < 0) return false;
  const hid_t space = attribute ? H5Aget_space(obj) : H5Dget_space(obj);
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  out.assign(static_cast<std::size_t>(n), 0.0);
  const herr_t status = attribute ? H5Aread(obj, H5T_NATIVE_DOUBLE, out.data())
                                  : H5Dread(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(space);
  attribute ? H5Aclose(obj) : H5Dclose(obj);
  return status >= 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: h5compare A.h5 B.h5\n");
    return 2;
  }
  const hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (a < 0 || b < 0) {
    std::fprintf(stderr, "h5compare: cannot open %s\n", a < 0 ? argv[1] : argv[2]);
    return 2;
  }
  const char* datasets[] = {"rho", "u", "v", "w", "p"};
  const char* attributes[] = {"time", "step", "grid", "origin", "spacing"};
  std::size_t values = 0;
  for (int kind = 0; kind < 2; ++kind)
    for (const char* name : kind == 0 ? datasets : attributes) {
      std::vector<double> x, y;
      if (!read(a, name, kind == 1, x) || !read(b, name, kind == 1, y)) {
        std::printf("%s: missing in one file\n", name);
        return 1;
      }
      if (x.size() != y.size()) {
        std::printf("%s: %zu values against %zu\n", name, x.size(), y.size());
        return 1;
      }
      for (std::size_t i = 0; i < x.size(); ++i)
        if (std::memcmp(&x[i], &y[i], sizeof(double)) != 0) {
          std::printf("%s[%zu]: %.17g against %.17g\n", name, i, x[i], y[i]);
          return 1;
        }
      values += x.size();
    }
  std::printf("identical: %zu values\n", values);
  H5Fclose(a);
  H5Fclose(b);
  return 0;
}
