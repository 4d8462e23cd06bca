#include "app/plot_script.hpp"

#include <system_error>

#include "app/build_info.hpp"
#include "io/deck.hpp"

namespace halocline {

namespace fs = std::filesystem;

namespace {

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

}  // namespace

fs::path find_plot_script(const fs::path& exe, const PlotScriptPlaces& places) {
  const fs::path bin_dir = exe.parent_path();
  const fs::path installed = (bin_dir / places.from_bin_dir).lexically_normal();
  std::error_code ec;
  if (fs::is_regular_file(installed, ec)) return installed;
  if (same_folder(bin_dir, places.build_bin_dir) && fs::is_regular_file(places.source_script, ec))
    return places.source_script;
  throw DeckError("--plot: no " + installed.string() + " beside this binary (" + exe.string() +
                  "); install it with cmake --install, or run the build tree's binary");
}

fs::path plot_script() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw DeckError("--plot: cannot find this binary's own path (/proc/self/exe: " + ec.message() + ")");
  return find_plot_script(
      exe, {build::kPlotScriptFromBinDir, build::kBuildBinDir, fs::path(build::kSourceDir) / "tools" / "plot.py"});
}

}  // namespace halocline
