// A Kokkos Tools library that records the profiling regions a run opens and closes, for the
// test that the Kokkos backend labels its phases (tests/kokkos_regions.sh). Kokkos loads it
// from KOKKOS_TOOLS_LIBS (Kokkos 4) or KOKKOS_PROFILE_LIBRARY (Kokkos 3) and calls these
// entry points by name; it needs no Kokkos header. Each line of $HALOCLINE_REGIONS_FILE is
// "push NAME" or "pop".
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {
void record(const char* what, const char* name) {
  const char* path = std::getenv("HALOCLINE_REGIONS_FILE");
  if (!path) return;
  if (std::FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, name ? "%s %s\n" : "%s\n", what, name);
    std::fclose(f);
  }
}
}  // namespace

extern "C" void kokkosp_init_library(int, std::uint64_t, std::uint32_t, void*) {}
extern "C" void kokkosp_finalize_library() {}
extern "C" void kokkosp_push_profile_region(const char* name) { record("push", name); }
extern "C" void kokkosp_pop_profile_region() { record("pop", nullptr); }
