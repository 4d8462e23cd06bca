// h5compare A.h5 B.h5: whether two Halocline snapshots, or two checkpoints, hold the same
// solution, bit for bit (docs/output.md). Snapshots: the variables rho, u, v, w, p, the cell
// centres x, y, z, the attributes time, step, grid, origin, spacing, gamma, problem and
// precision. Checkpoints: the conserved state, the attributes time, step, grid, lo, hi,
// gamma, problem, precision, boundaries and checksum. What says how and where a file was made
// (provenance, deck, layout, backend, format) is not compared: the point is to compare runs of
// other layouts, rank counts, backends, output paths or machines; nor are the files' bytes (a
// collective write lays a file out otherwise than a serial one).
//
// Exit 0 when every value is the same (prints "identical: N values"); 1 at the first
// difference, which it prints (NAME[index]: A against B, or what one file lacks); 2 for bad
// input (the usage, a file that cannot be read, a file that is neither a snapshot nor a
// checkpoint, a snapshot against a checkpoint), one line on stderr.
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

// What is compared, in this order: numbers (each read as doubles: a float, an int and an
// int64 convert exactly), then texts.
struct Item {
  const char* name;
  bool dataset;  // a dataset of the root group; else a root attribute
};
// A kind of file: its `format` attribute, what marks it, and what is compared.
struct Kind {
  const char* format;  // the `format` text attribute
  const char* name;    // in messages
  std::vector<Item> numbers;
  std::vector<const char*> texts;
};
const Kind kKinds[] = {
    {"halocline-snapshot",
     "snapshot",
     {{"rho", true},
      {"u", true},
      {"v", true},
      {"w", true},
      {"p", true},
      {"x", true},
      {"y", true},
      {"z", true},
      {"time", false},
      {"step", false},
      {"grid", false},
      {"origin", false},
      {"spacing", false},
      {"gamma", false}},
     {"problem", "precision"}},
    {"halocline-checkpoint",
     "checkpoint",
     {{"state", true},
      {"time", false},
      {"step", false},
      {"grid", false},
      {"lo", false},
      {"hi", false},
      {"gamma", false}},
     {"problem", "precision", "boundaries", "checksum"}},
};

// A snapshot open for reading, closed on scope exit.
class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) id_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  }
  ~File() {
    if (id_ >= 0) H5Fclose(id_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  hid_t id() const { return id_; }
  const std::string& path() const { return path_; }
  // Why the file cannot be read, or "" when it can.
  std::string fault() const {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) return "no such file";
    if (!std::filesystem::is_regular_file(path_, ec)) return "not a regular file";
    return id_ < 0 ? "not an HDF5 file" : "";
  }

 private:
  std::string path_;
  hid_t id_ = -1;
};

bool has(hid_t file, const char* name, bool dataset) {
  return dataset ? H5Lexists(file, name, H5P_DEFAULT) > 0 : H5Aexists(file, name) > 0;
}

// The values of a dataset or an attribute as doubles; false when they cannot be read.
bool read_numbers(hid_t file, const Item& item, std::vector<double>& out) {
  const hid_t obj = item.dataset ? H5Dopen2(file, item.name, H5P_DEFAULT) : H5Aopen(file, item.name, H5P_DEFAULT);
  if (obj < 0) return false;
  const hid_t space = item.dataset ? H5Dget_space(obj) : H5Aget_space(obj);
  out.assign(static_cast<std::size_t>(std::max<hssize_t>(0, H5Sget_simple_extent_npoints(space))), 0.0);
  const herr_t status = item.dataset ? H5Dread(obj, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data())
                                     : H5Aread(obj, H5T_NATIVE_DOUBLE, out.data());
  H5Sclose(space);
  item.dataset ? H5Dclose(obj) : H5Aclose(obj);
  return status >= 0;
}

// A fixed-length text attribute without its NUL padding; false when it cannot be read.
bool read_text(hid_t file, const char* name, std::string& out) {
  const hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  if (attr < 0) return false;
  const hid_t type = H5Aget_type(attr);
  const bool fixed = H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0;
  out.assign(fixed ? H5Tget_size(type) : 0, '\0');
  const bool read = fixed && H5Aread(attr, type, out.data()) >= 0;
  H5Tclose(type);
  H5Aclose(attr);
  out = out.substr(0, out.find('\0'));
  return read;
}

// Where `name` is in one file only, what to say; "" when both have it or neither does.
std::string presence(const File& a, const File& b, const char* name, bool dataset) {
  const bool in_a = has(a.id(), name, dataset), in_b = has(b.id(), name, dataset);
  if (in_a == in_b) return "";
  return std::string(name) + ": missing in " + (in_a ? b.path() : a.path());
}

// The first difference of a numeric item, "" when the same; adds the values compared to `count`.
std::string numbers_difference(const File& a, const File& b, const Item& item, std::size_t& count) {
  std::string missing = presence(a, b, item.name, item.dataset);
  if (!missing.empty() || !has(a.id(), item.name, item.dataset)) return missing;
  std::vector<double> x, y;
  if (!read_numbers(a.id(), item, x) || !read_numbers(b.id(), item, y))
    return std::string(item.name) + ": cannot be read as numbers";
  if (x.size() != y.size())
    return std::string(item.name) + ": " + std::to_string(x.size()) + " values against " + std::to_string(y.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::memcmp(&x[i], &y[i], sizeof(double)) != 0) {
      char text[128];
      std::snprintf(text, sizeof text, "[%zu]: %.17g against %.17g", i, x[i], y[i]);
      return item.name + std::string(text);
    }
  count += x.size();
  return "";
}

std::string text_difference(const File& a, const File& b, const char* name, std::size_t& count) {
  std::string missing = presence(a, b, name, false);
  if (!missing.empty() || !has(a.id(), name, false)) return missing;
  std::string x, y;
  if (!read_text(a.id(), name, x) || !read_text(b.id(), name, y)) return std::string(name) + ": cannot be read as text";
  if (x != y) return std::string(name) + ": '" + x + "' against '" + y + "'";
  ++count;
  return "";
}

// The kind of a file by its `format` attribute, or null where it is neither (snapshots made
// before the attribute have their variables: a snapshot).
const Kind* kind_of(const File& f) {
  std::string format;
  if (has(f.id(), "format", false) && read_text(f.id(), "format", format)) {
    for (const Kind& k : kKinds)
      if (format == k.format) return &k;
    return nullptr;
  }
  return has(f.id(), "rho", true) ? &kKinds[0] : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: h5compare A.h5 B.h5 (exit 0: the same values, 1: a difference, 2: bad input)\n";
  // Asked for, the usage and the version are answers (stdout, exit 0), not bad input.
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(usage, stdout);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("h5compare (halocline) %s\n", HALOCLINE_VERSION);
    return 0;
  }
  if (argc != 3) {
    std::fputs(usage, stderr);
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // a file that cannot be read is said in one line
  const File a(argv[1]), b(argv[2]);
  for (const File* f : {&a, &b})
    if (!f->fault().empty()) {
      std::fprintf(stderr, "h5compare: cannot read '%s': %s\n", f->path().c_str(), f->fault().c_str());
      return 2;
    }
  const Kind* kinds[2] = {kind_of(a), kind_of(b)};
  for (int i = 0; i < 2; ++i)
    if (!kinds[i]) {
      std::fprintf(stderr, "h5compare: '%s' is neither a Halocline snapshot nor a checkpoint\n",
                   (i == 0 ? a : b).path().c_str());
      return 2;
    }
  if (kinds[0] != kinds[1]) {
    std::fprintf(stderr, "h5compare: '%s' is a %s and '%s' a %s: compare two of a kind\n", a.path().c_str(),
                 kinds[0]->name, b.path().c_str(), kinds[1]->name);
    return 2;
  }
  // The kind's first dataset (a snapshot's rho, a checkpoint's state) in both: two files without
  // it would compare nothing and be "identical".
  const Item& main_data = kinds[0]->numbers.front();
  for (const File* f : {&a, &b})
    if (!has(f->id(), main_data.name, true)) {
      std::fprintf(stderr, "h5compare: '%s' is a %s without its dataset '%s'\n", f->path().c_str(), kinds[0]->name,
                   main_data.name);
      return 2;
    }
  std::size_t count = 0;
  std::string difference;
  for (const Item& item : kinds[0]->numbers)
    if (difference.empty()) difference = numbers_difference(a, b, item, count);
  for (const char* name : kinds[0]->texts)
    if (difference.empty()) difference = text_difference(a, b, name, count);
  if (!difference.empty()) {
    std::printf("%s\n", difference.c_str());
    return 1;
  }
  std::printf("identical: %zu values\n", count);
  return 0;
}
