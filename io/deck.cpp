// Reading a TOML deck (plus --set overrides) into a validated Config; docs/decks.md is the
// user-facing list of keys. The flow is: parse the text, splice the overrides into the
// parsed tree, reject unknown sections/keys, read each key with a type check, then run the
// cross-key rules (io/deck_rules.cpp), which are shared with the public validate() so that the
// command line gets the same messages, only without line numbers.
//
// toml++ is used in whatever mode the build selects: plain g++ gets the header-only
// default; the CMake target tomlplusplus::tomlplusplus adds -DTOML_HEADER_ONLY=0 and links
// Debian's shared libtomlplusplus. So nothing here defines TOML_HEADER_ONLY.
#include "io/deck.hpp"
#include "io/deck_rules.hpp"

#include <toml++/toml.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

namespace halocline {
namespace {

using namespace deck_detail;  // key tables, num(), validate_rules()

// ---- Words and names -------------------------------------------------------------------

template <class E>
using Choices = std::vector<std::pair<std::string, E>>;

// Built from the *_name functions so that every name printed can be read back.
template <class E>
Choices<E> named(std::initializer_list<E> values, const char* (*name)(E)) {
  Choices<E> out;
  for (E v : values) out.emplace_back(name(v), v);
  return out;
}
// Namespace-scope tables: safe because no static initialiser elsewhere parses a deck.
const Choices<ProblemKind> kProblems = named({ProblemKind::Riemann, ProblemKind::IsentropicVortex, ProblemKind::Sedov,
                                              ProblemKind::KelvinHelmholtz, ProblemKind::Uniform},
                                             problem_name);
const Choices<Boundary> kBoundaries =
    named({Boundary::Periodic, Boundary::Outflow, Boundary::Reflecting}, boundary_name);
const Choices<Limiter> kLimiters = named({Limiter::Minmod, Limiter::VanLeer, Limiter::MC}, limiter_name);
const Choices<RiemannSolver> kSolvers = named({RiemannSolver::HLLC, RiemannSolver::Rusanov}, riemann_name);
const Choices<LayoutKind> kLayouts = named({LayoutKind::AoS, LayoutKind::SoA, LayoutKind::AoSoA}, layout_name);
const Choices<Precision> kPrecisions = named({Precision::FP64, Precision::FP32}, precision_name);
const Choices<BackendKind> kBackends = named({BackendKind::Kokkos, BackendKind::Hip}, backend_name);
const Choices<Owner> kOwners = named({Owner::Device, Owner::Host, Owner::Managed}, owner_name);
const Choices<HostMemory> kHostMemories = named({HostMemory::Pinned, HostMemory::Pageable}, host_memory_name);
const Choices<HaloStrategy> kHalos =
    named({HaloStrategy::Auto, HaloStrategy::None, HaloStrategy::Sync, HaloStrategy::Overlap, HaloStrategy::GpuAware},
          halo_name);
const Choices<KernelStrategy> kKernels =
    named({KernelStrategy::Auto, KernelStrategy::Split, KernelStrategy::Fused}, kernels_name);
const Choices<int> kDirections = {{"x", 0}, {"y", 1}, {"z", 2}};

// Riemann presets: Toro (2009) Table 4.1, tests 1-5, with the x0 of his figures; "sod" is
// Sod's (1978) problem, numerically the same as toro1. States are {rho, u, v, w, p}.
struct Preset {
  const char* name;
  PrimState left, right;
  double x0;
};
const std::vector<Preset>& presets() {
  static const std::vector<Preset> p = {
      {"sod", {1.0, 0.0, 0.0, 0.0, 1.0}, {0.125, 0.0, 0.0, 0.0, 0.1}, 0.5},
      {"toro1", {1.0, 0.0, 0.0, 0.0, 1.0}, {0.125, 0.0, 0.0, 0.0, 0.1}, 0.5},
      {"toro2", {1.0, -2.0, 0.0, 0.0, 0.4}, {1.0, 2.0, 0.0, 0.0, 0.4}, 0.5},
      {"toro3", {1.0, 0.0, 0.0, 0.0, 1000.0}, {1.0, 0.0, 0.0, 0.0, 0.01}, 0.5},
      {"toro4", {1.0, 0.0, 0.0, 0.0, 0.01}, {1.0, 0.0, 0.0, 0.0, 100.0}, 0.4},
      {"toro5", {5.99924, 19.5975, 0.0, 0.0, 460.894}, {5.99242, -6.19633, 0.0, 0.0, 46.095}, 0.8},
  };
  return p;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}
template <class E>
std::string join(const Choices<E>& choices) {
  std::vector<std::string> words;
  for (const auto& c : choices) words.push_back(c.first);
  return join(words);
}

template <class E>
std::optional<E> lookup(const Choices<E>& choices, const std::string& word) {
  for (const auto& c : choices)
    if (c.first == word) return c.second;
  return std::nullopt;
}

// The public parse_* functions: the command line passes its option name as `key`.
template <class E>
E parse_word(const Choices<E>& choices, const std::string& word, const std::string& key) {
  if (auto e = lookup(choices, word)) return *e;
  throw DeckError(key + ": must be one of " + join(choices) + " (got '" + word + "')");
}

// toml++'s names for node types, except that TOML calls its floats "float".
std::string type_name(const toml::node& n) {
  std::ostringstream os;
  os << n.type();
  return n.is_floating_point() ? "float" : os.str();
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const auto dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// ---- The schema: the only valid sections and keys ----------------------------------------

struct Section {
  std::string name;
  std::vector<std::string> keys;
};
const std::vector<Section>& schema() {
  static const std::vector<Section> s = {
      {"problem", {"type"}},
      {"grid", {"n", "nx", "ny", "nz", "xmin", "xmax", "ymin", "ymax", "zmin", "zmax"}},
      {"physics", {"gamma", "cfl", "limiter", "riemann"}},
      {"time", {"t_end", "max_steps"}},
      {"boundary", {"all", "x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"}},
      {"output", {"interval", "final", "dir", "collective"}},
      {"checkpoint", {"every_steps", "every_seconds", "keep", "dir"}},
      {"run", {"layout", "precision", "backend", "owner", "host_mem", "prefetch", "halo", "kernels"}},
      {"riemann", {"preset", "direction", "x0", "left", "right"}},
      {"isentropic_vortex", {"strength", "x0", "y0", "u", "v", "rho", "p"}},
      {"sedov", {"energy", "radius_cells", "rho", "p"}},
      {"kelvin_helmholtz", {"rho_inner", "rho_outer", "velocity", "p", "width", "amplitude"}},
      {"uniform", {"rho", "u", "v", "w", "p", "perturbation", "seed"}},
  };
  return s;
}
const std::vector<std::string>& state_keys() {  // keys of [riemann.left] / [riemann.right]
  static const std::vector<std::string> k = {"rho", "u", "v", "w", "p"};
  return k;
}

bool contains(const std::vector<std::string>& words, const std::string& w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

// ---- Reading typed values, with the location of each key --------------------------------

class Reader {
 public:
  Reader(const toml::table& root, std::string source, std::map<std::string, std::string> origins)
      : root_(root), source_(std::move(source)), origins_(std::move(origins)) {}

  const toml::table& root() const { return root_; }

  const toml::node* find(const std::string& key) const {
    const toml::node* n = &root_;
    for (const auto& part : split_key(key)) {
      const toml::table* t = n->as_table();
      if (!t || !(n = t->get(part))) return nullptr;
    }
    return n;
  }

  // "<source>:<line>", "--set key=value" for a key an override set (or set a table
  // above), or just "<source>" where there is no line.
  std::string where(const std::string& key, const toml::node* node) const {
    for (std::string k = key;;) {
      const auto it = origins_.find(k);
      if (it != origins_.end()) return "--set " + it->second;
      const auto dot = k.rfind('.');
      if (dot == std::string::npos) break;
      k.erase(dot);
    }
    if (node && node->source().begin.line > 0) return source_ + ":" + std::to_string(node->source().begin.line);
    return source_;
  }

  // The location of the first of `keys` present in the deck, else the bare source.
  std::string where_any(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (const toml::node* n = find(k)) return where(k, n);
    return source_;
  }

  [[noreturn]] void fail(const std::string& key, const toml::node* node, const std::string& message) const {
    throw DeckError(where(key, node) + ": " + message);
  }

  [[noreturn]] void wrong_type(const std::string& key, const toml::node& n, const char* expected) const {
    fail(key, &n, "key '" + key + "' must be " + expected + " (got " + type_name(n) + beyond_range(n) + ")");
  }

  // Where `n` is a word that reads as a number: " 'WORD', a number beyond a double's range"
  // (or "an integer beyond 64 bits": a --set value TOML cannot hold as a number, 1e400,
  // 99999999999999999999), or " 'WORD', which TOML reads as text" (n = "64" in a deck,
  // --set 'grid.n="8"', or a --set word in a form TOML's numbers lack: .5, 08); else nothing.
  static std::string beyond_range(const toml::node& n) {
    const auto* word = n.as_string();
    if (!word || word->get().empty()) return "";
    const std::string text = word->get();
    const std::string quoted =
        " '" + text + "', which TOML reads as text: a number in quotes, or in a form TOML lacks (.5, 5., 08)";
    const std::size_t digits = text.find_first_not_of("+-") == 1 ? 1 : 0;  // one sign at most
    char* end = nullptr;
    errno = 0;
    if (text.size() > digits && text.find_first_not_of("0123456789", digits) == std::string::npos) {
      (void)std::strtoll(text.c_str(), &end, 10);
      return errno == ERANGE ? " '" + text + "', an integer beyond 64 bits" : quoted;
    }
    (void)std::strtod(text.c_str(), &end);
    if (*end != '\0' || std::isspace(static_cast<unsigned char>(text[0]))) return "";
    return errno == ERANGE ? " '" + text + "', a number beyond a double's range" : quoted;
  }

  std::optional<double> number(const std::string& key) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    double v = 0;
    if (const auto* i = n->as_integer())  // integers are welcome where floats are expected
      v = static_cast<double>(i->get());
    else if (const auto* f = n->as_floating_point())
      v = f->get();
    else
      wrong_type(key, *n, "a number");
    if (!std::isfinite(v)) fail(key, n, "key '" + key + "' must be finite (got " + num(v) + ")");
    return v;
  }

  // The value of an exact TOML type T (no conversions), or nothing when the key is absent.
  template <class T>
  std::optional<T> exact(const std::string& key, const char* expected) const {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    if (auto v = n->value_exact<T>()) return v;
    wrong_type(key, *n, expected);
  }
  std::optional<std::string> string(const std::string& key) const { return exact<std::string>(key, "a string"); }
  std::optional<bool> boolean(const std::string& key) const { return exact<bool>(key, "a boolean (true or false)"); }
  std::optional<long long> integer(const std::string& key, long long lo, long long hi) const {
    const auto v = exact<std::int64_t>(key, "an integer");
    if (v && (*v < lo || *v > hi))
      fail(key, find(key),
           "key '" + key + "' must be " + (*v < lo ? ">= " + std::to_string(lo) : "<= " + std::to_string(hi)) +
               " (got " + std::to_string(*v) + ")");
    return v;
  }

  template <class E>
  std::optional<E> choice(const std::string& key, const Choices<E>& choices) const {
    const auto word = string(key);
    if (!word) return std::nullopt;
    if (auto e = lookup(choices, *word)) return e;
    fail(key, find(key), "key '" + key + "' must be one of " + join(choices) + " (got '" + *word + "')");
  }

  // Small helpers that assign only when the key is present.
  void set(const std::string& key, double& dst) const {
    if (auto v = number(key)) dst = *v;
  }
  template <class E>
  void set(const std::string& key, E& dst, const Choices<E>& choices) const {
    if (auto v = choice(key, choices)) dst = *v;
  }

 private:
  const toml::table& root_;
  std::string source_;
  std::map<std::string, std::string> origins_;  // dotted key -> its "--set" text
};

// ---- Overrides ----------------------------------------------------------------------------

// `text` with its control characters written as escapes (\n, \t, \xNN): an error names an
// override on one line.
std::string escaped_controls(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else
      out += ch;
  }
  return out;
}

// Sets `name` (the dotted `key`) of `table` to `value`, set by the override `text`. An inline
// table set where the deck has a table is merged into it, key by key (`--set
// 'grid={nx=32,ny=32}'` is `--set grid.nx=32 --set grid.ny=32`): until 2026-12-07 it replaced
// the section, and the deck's domain, preset or other keys were gone without a word.
void set_key(toml::table& table, const std::string& name, const std::string& key, toml::node&& value,
             const std::string& text, std::map<std::string, std::string>& origins) {
  toml::node* there = table.get(name);
  if (value.is_table() && there && there->is_table()) {
    for (auto&& [k, v] : *value.as_table())
      set_key(*there->as_table(), std::string(k.str()), key + "." + std::string(k.str()), std::move(v), text, origins);
    return;
  }
  table.insert_or_assign(name, std::move(value));
  // A later override of a whole key supersedes earlier ones of keys inside it.
  for (auto it = origins.lower_bound(key + "."); it != origins.end();) {
    if (it->first.compare(0, key.size() + 1, key + ".") != 0) break;
    it = origins.erase(it);
  }
  origins[key] = text;
}

// Splices one "a.b.c=value" into the tree, creating tables on the way, and records its text
// so that messages about the key name the override instead of a deck line.
void apply_override(toml::table& root, const std::string& text, std::map<std::string, std::string>& origins) {
  const std::string here = "--set " + escaped_controls(text);
  const auto eq = text.find('=');
  if (eq == std::string::npos) throw DeckError(here + ": expected key=value, e.g. --set grid.n=256");
  const std::string key = trim(text.substr(0, eq));
  const std::string value = text.substr(eq + 1);
  const auto parts = split_key(key);
  for (const auto& p : parts)
    if (p.empty()) throw DeckError(here + ": malformed key '" + key + "'");

  // The value is TOML if it parses as the right-hand side of an assignment (128, 1e-3,
  // true, "text", [1, 2]); otherwise it is a bare word such as aos or periodic.
  // A value that opens a TOML string, array or table must be one: a broken one (an unclosed
  // quote, a newline inside "...") is refused, never taken as a word with its quotes in it.
  // A word (aos, periodic, a path) holds no control characters.
  toml::table parsed;
  bool is_toml = false;
  const std::string word = trim(value);
  const bool opens_toml = !word.empty() && std::string("\"'[{").find(word.front()) != std::string::npos;
  try {
    parsed = toml::parse("x = " + value, std::string_view("--set"));
    is_toml = parsed.size() == 1 && parsed.contains("x");
  } catch (const toml::parse_error& e) {
    if (opens_toml) throw DeckError(here + ": not a TOML value (" + std::string(e.description()) + ")");
  }
  if (!is_toml && opens_toml) throw DeckError(here + ": not one TOML value");
  if (!is_toml &&
      std::any_of(word.begin(), word.end(), [](char ch) { return std::iscntrl(static_cast<unsigned char>(ch)); }))
    throw DeckError(here + ": a value holds no control characters");

  toml::table* table = &root;
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i ? "." : "") + parts[i];
    toml::node* n = table->get(parts[i]);
    if (!n) {  // a table the override creates is the override's, for messages
      n = table->insert(parts[i], toml::table{}).first->second.as_table();
      origins[prefix] = text;
    }
    if (!n->is_table())
      throw DeckError(here + ": key '" + prefix + "' is not a table (it is " +
                      (n->is_integer() || n->is_array() ? "an " : "a ") + type_name(*n) + ")");
    table = n->as_table();
  }
  if (is_toml)
    set_key(*table, parts.back(), key, std::move(*parsed.get("x")), text, origins);
  else
    set_key(*table, parts.back(), key, toml::value<std::string>(trim(value)), text, origins);
}

// ---- Structure and reading --------------------------------------------------------------

void check_structure(const Reader& r) {
  std::vector<std::string> section_names;
  for (const auto& s : schema()) section_names.push_back(s.name);

  for (auto&& [k, v] : r.root()) {
    const std::string sec(k.str());
    const Section* section = nullptr;
    for (const auto& s : schema())
      if (s.name == sec) section = &s;
    if (!section) {
      if (v.is_table())
        r.fail(sec, &v, "unknown section '[" + sec + "]' (valid sections: " + join(section_names) + ")");
      r.fail(sec, &v, "unknown key '" + sec + "' (every key belongs in a section: " + join(section_names) + ")");
    }
    if (!v.is_table()) r.wrong_type(sec, v, "a table");

    for (auto&& [k2, v2] : *v.as_table()) {
      const std::string name(k2.str());
      const std::string key = sec + "." + name;
      if (!contains(section->keys, name))
        r.fail(key, &v2, "unknown key '" + key + "' (valid keys in [" + sec + "]: " + join(section->keys) + ")");
      if (sec == "riemann" && (name == "left" || name == "right")) {
        if (!v2.is_table()) r.wrong_type(key, v2, "a table of rho, u, v, w, p");
        for (auto&& [k3, v3] : *v2.as_table()) {
          const std::string key3 = key + "." + std::string(k3.str());
          if (!contains(state_keys(), std::string(k3.str())))
            r.fail(key3, &v3, "unknown key '" + key3 + "' (valid keys in [" + key + "]: " + join(state_keys()) + ")");
        }
      }
    }
  }
}

// A directory named in a deck stays under `base`: a deck (perhaps someone else's) must not
// make the run write anywhere else. Only --out on the command line may point elsewhere.
void check_deck_path(const Reader& r, const std::string& key, const std::string& path, const std::string& base) {
  const auto* node = r.find(key);
  if (path.empty()) r.fail(key, node, "key '" + key + "' must not be empty");
  const std::filesystem::path p(path);
  bool up = false;
  for (const auto& part : p) up = up || part == "..";
  if (p.is_absolute() || up)
    r.fail(
        key, node,
        "key '" + key + "' must be a relative path below " + base + " (no leading '/', no '..'); got '" + path + "'");
}

// A problem's own section is an error under any other problem: the deck would silently
// not do what its author thinks.
void check_problem_sections(const Reader& r, ProblemKind problem) {
  const std::string type = problem_name(problem);
  for (const auto& [name, kind] : kProblems) {
    if (kind == problem) continue;
    const toml::node* sec = r.find(name);
    if (!sec) continue;
    const toml::table& t = *sec->as_table();
    if (t.empty())
      r.fail(name, sec,
             "section '[" + name + "]' applies to problem '" + name + "' but problem.type is '" + type + "'");
    const auto first = t.begin();
    const std::string key = name + "." + std::string(first->first.str());
    r.fail(key, &first->second,
           "key '" + key + "' applies to problem '" + name + "' but problem.type is '" + type + "'");
  }
}

// Reads the float keys `section.name` that are present into their destinations.
void read_floats(const Reader& r, const std::string& section,
                 std::initializer_list<std::pair<const char*, double*>> keys) {
  for (const auto& [name, dst] : keys) r.set(section + "." + name, *dst);
}
void read_state(const Reader& r, const std::string& section, PrimState& s) {
  read_floats(r, section, {{"rho", &s.rho}, {"u", &s.u}, {"v", &s.v}, {"w", &s.w}, {"p", &s.p}});
}

// [grid]: n sets all three sizes, explicit nx/ny/nz win; sizes not given are 1, so a 1-D
// problem along y needs only ny.
void read_grid(const Reader& r, Config& c) {
  const auto n = r.integer("grid.n", 1, INT_MAX);
  if (n) c.n = {int(*n), int(*n), int(*n)};
  bool sized = n.has_value();
  for (int d = 0; d < 3; ++d)  // >= 1 is validate's check, which names the key too
    if (auto v = r.integer(kSizeKeys[d], INT_MIN, INT_MAX)) c.n[d] = int(*v), sized = true;
  if (!sized) r.fail("grid.n", nullptr, "missing required key 'grid.n' (or grid.nx, grid.ny, grid.nz): the grid size");
  read_floats(r, "grid",
              {{"xmin", &c.lo[0]},
               {"ymin", &c.lo[1]},
               {"zmin", &c.lo[2]},
               {"xmax", &c.hi[0]},
               {"ymax", &c.hi[1]},
               {"zmax", &c.hi[2]}});
}

// [physics], [time] and [boundary] (`all` first, then the faces named explicitly).
void read_physics_time_boundaries(const Reader& r, Config& c) {
  read_floats(r, "physics", {{"gamma", &c.physics.gamma}, {"cfl", &c.physics.cfl}});
  r.set("physics.limiter", c.physics.limiter, kLimiters);
  r.set("physics.riemann", c.physics.riemann, kSolvers);

  const auto t_end = r.number("time.t_end");
  if (!t_end) r.fail("time.t_end", nullptr, "missing required key 'time.t_end'");
  c.t_end = *t_end;
  if (auto v = r.integer("time.max_steps", LLONG_MIN, LONG_MAX)) c.max_steps = long(*v);

  if (auto all = r.choice("boundary.all", kBoundaries))
    for (auto& dir : c.boundary) dir = {*all, *all};
  for (int d = 0; d < 3; ++d)
    for (int s = 0; s < 2; ++s) r.set(kFaceKeys[d][s], c.boundary[d][s], kBoundaries);
}

// [output] and [checkpoint]: what the run writes, and where (paths kept under their base).
void read_outputs(const Reader& r, Config& c) {
  r.set("output.interval", c.output_interval);
  if (auto v = r.boolean("output.final")) c.output_final = *v;
  if (auto v = r.boolean("output.collective")) c.output_collective = *v;
  if (auto v = r.integer("checkpoint.every_steps", LLONG_MIN, LONG_MAX)) c.checkpoint.every_steps = long(*v);
  r.set("checkpoint.every_seconds", c.checkpoint.every_seconds);
  if (auto v = r.integer("checkpoint.keep", INT_MIN, INT_MAX)) c.checkpoint.keep = int(*v);
  if (auto v = r.string("checkpoint.dir")) {
    check_deck_path(r, "checkpoint.dir", *v, "the output directory");
    c.checkpoint.dir = *v;
  }
  if (auto v = r.string("output.dir")) {
    check_deck_path(r, "output.dir", *v, "the directory the run starts in");
    c.out_dir = *v;
  }
}

// [run]: the strategies (layout, precision, backend, memory, halo, kernels).
void read_strategies(const Reader& r, Config& c) {
  r.set("run.layout", c.layout, kLayouts);
  r.set("run.precision", c.precision, kPrecisions);
  r.set("run.backend", c.backend, kBackends);
  r.set("run.owner", c.memory.owner, kOwners);
  r.set("run.host_mem", c.memory.host_memory, kHostMemories);
  if (auto v = r.boolean("run.prefetch")) c.memory.prefetch = *v;
  r.set("run.halo", c.halo, kHalos);
  r.set("run.kernels", c.kernels, kKernels);
}

// [riemann]: the preset first, then any explicit value on top of it.
void read_riemann(const Reader& r, Config& c) {
  if (auto preset = r.string("riemann.preset")) {
    c.riemann.preset = *preset;
    if (*preset != "custom") {
      const Preset* found = nullptr;
      std::string names;
      for (const auto& p : presets()) {
        names += std::string(p.name) + ", ";
        if (*preset == p.name) found = &p;
      }
      if (!found)
        r.fail("riemann.preset", r.find("riemann.preset"),
               "key 'riemann.preset' must be one of " + names + "custom (got '" + *preset + "')");
      c.riemann.left = found->left;
      c.riemann.right = found->right;
      c.riemann.x0 = found->x0;
    }
  }
  r.set("riemann.direction", c.riemann.direction, kDirections);
  r.set("riemann.x0", c.riemann.x0);
  read_state(r, "riemann.left", c.riemann.left);
  read_state(r, "riemann.right", c.riemann.right);
}

// The other problems' sections (only the deck's problem may have one: check_problem_sections).
void read_other_problems(const Reader& r, Config& c) {
  read_floats(r, "isentropic_vortex",
              {{"strength", &c.vortex.strength},
               {"x0", &c.vortex.x0},
               {"y0", &c.vortex.y0},
               {"u", &c.vortex.u},
               {"v", &c.vortex.v},
               {"rho", &c.vortex.rho},
               {"p", &c.vortex.p}});
  read_floats(
      r, "sedov",
      {{"energy", &c.sedov.energy}, {"radius_cells", &c.sedov.radius_cells}, {"rho", &c.sedov.rho}, {"p", &c.sedov.p}});
  read_floats(r, "kelvin_helmholtz",
              {{"rho_inner", &c.kh.rho_inner},
               {"rho_outer", &c.kh.rho_outer},
               {"velocity", &c.kh.velocity},
               {"p", &c.kh.p},
               {"width", &c.kh.width},
               {"amplitude", &c.kh.amplitude}});
  read_floats(r, "uniform", {{"perturbation", &c.uniform.perturbation}});
  read_state(r, "uniform", c.uniform.state);
  if (auto v = r.integer("uniform.seed", 0, UINT_MAX)) c.uniform.seed = unsigned(*v);
}

// The deck's sections in the order they are documented (docs/decks.md).
Config read_config(const Reader& r) {
  Config c;
  const auto problem = r.choice("problem.type", kProblems);
  if (!problem) r.fail("problem.type", nullptr, "missing required key 'problem.type' (one of " + join(kProblems) + ")");
  c.problem = *problem;
  check_problem_sections(r, c.problem);
  read_grid(r, c);
  read_physics_time_boundaries(r, c);
  read_outputs(r, c);
  read_strategies(r, c);
  read_riemann(r, c);
  read_other_problems(r, c);
  return c;
}

// toml++'s descriptions are one line already; this guards the one-line promise anyway.
std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

}  // namespace

// ---- Public interface -------------------------------------------------------------------

bool is_problem_parameter(const std::string& key) {
  const std::string section = key.substr(0, key.find('.'));
  for (const auto& entry : kProblems)
    if (entry.first == section) return true;
  return false;
}

std::string override_key(const std::string& set) { return trim(set.substr(0, set.find('='))); }

namespace {

// The keys a --set names: its key, or for an inline table (--set 'time={max_steps=5}') the
// keys under it, merged key by key (set_key); a value that is no table names its key alone.
void add_keys_set(const std::string& key, const toml::node& value, std::vector<std::string>& keys) {
  const toml::table* t = value.as_table();
  if (!t) {
    keys.push_back(key);
    return;
  }
  for (auto&& [k, v] : *t) add_keys_set(key + "." + std::string(k.str()), v, keys);
}

std::vector<std::string> keys_set(const std::string& set) {
  const std::string key = override_key(set);
  std::vector<std::string> keys;
  const std::size_t eq = set.find('=');
  try {
    if (eq != std::string::npos) {
      const toml::table parsed = toml::parse("x = " + set.substr(eq + 1), std::string_view("--set"));
      if (const toml::node* value = parsed.get("x")) add_keys_set(key, *value, keys);
    }
  } catch (const toml::parse_error&) {
    // a bare word: the key alone
  }
  if (keys.empty()) keys.push_back(key);
  return keys;
}

}  // namespace

std::string overridden_keys_that(const std::vector<std::string>& sets, bool (*pick)(const std::string& key)) {
  std::vector<std::string> keys;
  for (const std::string& set : sets)
    for (const std::string& key : keys_set(set))
      if (pick(key) && std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  std::string text;
  for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + key;
  return keys.empty() ? "" : text + (keys.size() == 1 ? " has" : " have");
}

Config parse_deck(const std::string& text, const std::string& source, const std::vector<std::string>& overrides) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw DeckError(source + ":" + std::to_string(e.source().begin.line) +
                    ": TOML syntax error: " + one_line(std::string(e.description())));
  }

  std::map<std::string, std::string> origins;
  for (const auto& o : overrides) apply_override(root, o, origins);

  const Reader reader(root, source, std::move(origins));
  check_structure(reader);
  Config config = read_config(reader);
  config.deck_path = source;
  config.deck_text = text;
  validate_rules(config, [&](std::initializer_list<const char*> keys) { return reader.where_any(keys); });
  return config;
}

namespace {

// The deck's bytes, at most kMaxDeckBytes + 1 (a device such as /dev/zero never ends). A
// FIFO or device that gives nothing for kDeckWaitSeconds is refused (a FIFO with no writer
// would wait for ever; under MPI every rank would wait with it).
constexpr int kDeckWaitSeconds = 10;
std::string read_deck_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw DeckError("cannot read deck '" + path + "': " + std::strerror(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  std::string text;
  char buf[8192];
  for (;;) {
    if (!regular) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, kDeckWaitSeconds * 1000);
      if (ready == 0) {
        ::close(fd);
        throw DeckError("deck '" + path + "' gave no data for " + std::to_string(kDeckWaitSeconds) +
                        " s (a FIFO with no writer?)");
      }
    }
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) {
      const int err = errno;  // e.g. EISDIR for a directory
      ::close(fd);
      throw DeckError("cannot read deck '" + path + "': " + std::strerror(err));
    }
    if (got == 0 || text.size() > kMaxDeckBytes) break;
    text.append(buf, static_cast<std::size_t>(got));
  }
  ::close(fd);
  return text;
}

}  // namespace

Config load_deck(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_deck_bytes(path);
  if (text.size() > kMaxDeckBytes)
    throw DeckError("deck '" + path + "' is larger than " + std::to_string(kMaxDeckBytes >> 20) +
                    " MiB, the most a deck may be");
  return parse_deck(text, path, overrides);
}

void validate(const Config& config) {
  const std::string source = config.deck_path.empty() ? "config" : config.deck_path;
  validate_rules(config, [&](std::initializer_list<const char*>) { return source; });
}

LayoutKind parse_layout(const std::string& word, const std::string& key) { return parse_word(kLayouts, word, key); }
Precision parse_precision(const std::string& word, const std::string& key) {
  return parse_word(kPrecisions, word, key);
}
BackendKind parse_backend(const std::string& word, const std::string& key) { return parse_word(kBackends, word, key); }
Owner parse_owner(const std::string& word, const std::string& key) { return parse_word(kOwners, word, key); }
HostMemory parse_host_memory(const std::string& word, const std::string& key) {
  return parse_word(kHostMemories, word, key);
}
HaloStrategy parse_halo(const std::string& word, const std::string& key) { return parse_word(kHalos, word, key); }
KernelStrategy parse_kernels(const std::string& word, const std::string& key) {
  return parse_word(kKernels, word, key);
}

}  // namespace halocline
