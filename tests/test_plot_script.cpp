// `bench --plot` finds plot.py beside an installed binary, in the source tree for the build
// tree's binary, and nowhere else (app/plot_script.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/plot_script.hpp"
#include "io/deck.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
namespace hc = halocline;

namespace {

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "#!/usr/bin/python3\n";
}

// An install tree P/bin/halocline + P/share/halocline/plot.py, a build tree B/bin/halocline
// and a source tree S/tools/plot.py, all in one temporary folder.
struct Trees {
  hc::test::TempDir dir;
  fs::path prefix, build, source;
  hc::PlotScriptPlaces places;
  explicit Trees(const std::string& tag)
      : dir(tag), prefix(dir.path() / "prefix"), build(dir.path() / "build"), source(dir.path() / "source") {
    touch(prefix / "bin" / "halocline");
    touch(build / "bin" / "halocline");
    touch(source / "tools" / "plot.py");
    places = {"../share/halocline/plot.py", build / "bin", source / "tools" / "plot.py"};
  }
};

}  // namespace

TEST(PlotScript, AnInstalledBinaryTakesTheCopyInstalledWithIt) {
  Trees t("plot_installed");
  touch(t.prefix / "share" / "halocline" / "plot.py");
  EXPECT_EQ(hc::find_plot_script(t.prefix / "bin" / "halocline", t.places),
            t.prefix / "share" / "halocline" / "plot.py");
  // Moved elsewhere as a whole, it still does.
  fs::rename(t.prefix, t.dir.path() / "moved");
  EXPECT_EQ(hc::find_plot_script(t.dir.path() / "moved" / "bin" / "halocline", t.places),
            t.dir.path() / "moved" / "share" / "halocline" / "plot.py");
}

// CMAKE_INSTALL_DATADIR given as an absolute folder: the path to plot.py is that folder's,
// wherever the binary is (it was joined to the binary's folder, and not found).
TEST(PlotScript, AnAbsoluteDataFolderIsTakenAsItIs) {
  Trees t("plot_absolute");
  const fs::path data = t.dir.path() / "elsewhere" / "halocline" / "plot.py";
  touch(data);
  t.places.from_bin_dir = data;
  EXPECT_EQ(hc::find_plot_script(t.prefix / "bin" / "halocline", t.places), data);
}

TEST(PlotScript, TheBuildTreesBinaryTakesTheSourceTreesScript) {
  Trees t("plot_build");
  EXPECT_EQ(hc::find_plot_script(t.build / "bin" / "halocline", t.places), t.source / "tools" / "plot.py");
  // Through another spelling of the same folder too.
  EXPECT_EQ(hc::find_plot_script(t.build / "bin" / "." / "halocline", t.places), t.source / "tools" / "plot.py");
}

// An installed binary whose plot.py is missing does not fall back on a source tree that
// may have changed since: the error names the path it looked for.
TEST(PlotScript, ABinaryWithoutItsCopyNamesWhereItLooked) {
  Trees t("plot_missing");
  try {
    hc::find_plot_script(t.prefix / "bin" / "halocline", t.places);
    FAIL() << "expected a DeckError";
  } catch (const hc::DeckError& e) {
    const std::string expected = "--plot: no " + (t.prefix / "share" / "halocline" / "plot.py").string() +
                                 " beside this binary (" + (t.prefix / "bin" / "halocline").string() + ")";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
}

// This test binary is not the build tree's halocline, but it is built beside it (bin/):
// the places it was built with lead to the source tree's tools/plot.py, which exists.
TEST(PlotScript, ThisBuildFindsTheSourceTreesScript) {
  EXPECT_EQ(hc::plot_script(), fs::path(HALOCLINE_SOURCE_DIR) / "tools" / "plot.py");
}

// --plot's folder is checked before any work: plot.py replaces only the pictures it drew,
// never a link planted under a picture's name (it wrote through it) nor someone's file; a file
// where the folder goes is refused too (plot.py died with a traceback after the sweep).
TEST(PlotScript, ThePlotFolderHoldsOnlyPicturesPlotPyDrew) {
  hc::test::TempDir dir("plot_folder");
  const fs::path plots = dir.path() / "plots";
  auto refusal = [&]() -> std::string {
    try {
      hc::check_plot_folder(plots, "--plot");
    } catch (const hc::DeckError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal(), "");  // absent: plot.py makes it
  fs::create_directories(plots);
  std::ofstream(plots / "bench_all.png", std::ios::binary) << std::string("\x89PNG\r\n\x1a\n", 8) << "pixels";
  std::ofstream(plots / "notes.txt") << "not a picture's name\n";
  EXPECT_EQ(refusal(), "");  // its own picture, and names it never writes
  const fs::path victim = dir.path() / "victim.txt";
  std::ofstream(victim) << "precious\n";
  fs::create_symlink(victim, plots / "bench_layout.png");
  EXPECT_EQ(refusal(),
            "--plot: '" + (plots / "bench_layout.png").string() +
                "' is a symbolic link: plot.py replaces only the pictures it drew; move it or draw elsewhere");
  fs::remove(plots / "bench_layout.png");
  fs::create_hard_link(plots / "bench_all.png", dir.path() / "elsewhere.png");
  EXPECT_NE(refusal().find("bench_all.png' is a file with another name (a hard link)"), std::string::npos);
  fs::remove(dir.path() / "elsewhere.png");
  std::ofstream(plots / "compare.png") << "someone's notes\n";
  EXPECT_NE(refusal().find("compare.png' is not a PNG image"), std::string::npos);
  fs::remove(plots / "compare.png");
  EXPECT_EQ(refusal(), "");
  fs::remove_all(plots);
  std::ofstream(plots) << "a file\n";
  EXPECT_EQ(refusal(), "--plot: '" + plots.string() + "' exists and is not a directory: the pictures go into a folder");
}
