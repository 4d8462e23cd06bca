#include "app/failures.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <sstream>
#include <vector>

#include "app/comm.hpp"
#include "app/driver.hpp"
#include "app/resources.hpp"
#include "io/checkpoint.hpp"
#include "io/deck.hpp"
#include "io/deck_rules.hpp"
#include "io/output_error.hpp"
#include "kernels/contract/backend.hpp"

namespace halocline {

namespace {

// The shortest text that reads back as the same bits (the deck reader's own).
std::string exact(double x) { return deck_detail::num(x); }

std::string state_text(const PrimState& s) {
  return exact(s.rho) + " " + exact(s.u) + " " + exact(s.v) + " " + exact(s.w) + " " + exact(s.p);
}

// The line of `lines` that first differs from the same line of `reference`, with both values.
std::string first_difference(const std::string& lines, const std::string& reference) {
  std::istringstream mine(lines), theirs(reference);
  std::string a, b;
  for (;;) {
    const bool more_a = static_cast<bool>(std::getline(mine, a));
    const bool more_b = static_cast<bool>(std::getline(theirs, b));
    if (!more_a && !more_b) return "";
    if (a != b || more_a != more_b) {
      const std::size_t eq = a.find(" = ");
      const std::string key = a.substr(0, eq);
      const std::string value_b = b.find(" = ") == std::string::npos ? b : b.substr(b.find(" = ") + 3);
      return key + " (" + (eq == std::string::npos ? a : a.substr(eq + 3)) + " here, " + value_b + " on rank 0)";
    }
  }
}

std::string escape(unsigned char ch) {
  switch (ch) {
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: {
      char text[8];
      std::snprintf(text, sizeof text, "\\x%02x", ch);
      return text;
    }
  }
}

}  // namespace

std::string configuration_lines(const Config& c) {
  std::ostringstream s;
  auto line = [&](const char* key, const std::string& value) { s << key << " = " << value << '\n'; };
  auto triple = [](const auto& v) {
    std::ostringstream t;
    t << exact(v[0]) << " " << exact(v[1]) << " " << exact(v[2]);
    return t.str();
  };
  line("problem.type", problem_name(c.problem));
  line("riemann", c.riemann.preset + " " + state_text(c.riemann.left) + " / " + state_text(c.riemann.right) + " x0 " +
                      exact(c.riemann.x0) + " direction " + std::to_string(c.riemann.direction));
  const VortexSetup& v = c.vortex;
  line("isentropic_vortex", triple(std::array<double, 3>{v.strength, v.x0, v.y0}) + " " +
                                triple(std::array<double, 3>{v.u, v.v, v.rho}) + " " + exact(v.p));
  const SedovSetup& sd = c.sedov;
  line("sedov", triple(std::array<double, 3>{sd.energy, sd.radius_cells, sd.rho}) + " " + exact(sd.p));
  const KelvinHelmholtzSetup& kh = c.kh;
  line("kelvin_helmholtz", triple(std::array<double, 3>{kh.rho_inner, kh.rho_outer, kh.velocity}) + " " +
                               triple(std::array<double, 3>{kh.p, kh.width, kh.amplitude}));
  line("uniform", state_text(c.uniform.state) + " perturbation " + exact(c.uniform.perturbation) + " seed " +
                      std::to_string(c.uniform.seed));
  line("grid.n", triple(c.n));
  line("grid.min", triple(c.lo));
  line("grid.max", triple(c.hi));
  line("physics.gamma", exact(c.physics.gamma));
  line("physics.cfl", exact(c.physics.cfl));
  line("physics.limiter", limiter_name(c.physics.limiter));
  line("physics.riemann", riemann_name(c.physics.riemann));
  std::string faces;
  for (const auto& dir : c.boundary) faces += std::string(boundary_name(dir[0])) + " " + boundary_name(dir[1]) + " ";
  line("boundary", faces);
  line("time.t_end", exact(c.t_end));
  line("time.max_steps", std::to_string(c.max_steps));
  line("output.interval", exact(c.output_interval));
  line("output.final", c.output_final ? "true" : "false");
  line("output.collective", c.output_collective ? "true" : "false");
  line("output.dir", c.out_dir);
  line("report", c.report_path);
  line("checkpoint", std::to_string(c.checkpoint.every_steps) + " steps " + exact(c.checkpoint.every_seconds) +
                         " s keep " + std::to_string(c.checkpoint.keep) + " dir '" + c.checkpoint.dir + "'");
  line("restart", c.restart_path);
  line("run.layout", layout_name(c.layout));
  line("run.precision", precision_name(c.precision));
  line("run.backend", backend_name(c.backend));
  line("run.owner", owner_name(c.memory.owner));
  line("run.host_mem", host_memory_name(c.memory.host_memory));
  line("run.prefetch", c.memory.prefetch ? "on" : "off");
  line("run.halo", halo_name(c.halo));
  line("run.kernels", kernels_name(c.kernels));
  line("ranks_grid",
       std::to_string(c.ranks_grid[0]) + "," + std::to_string(c.ranks_grid[1]) + "," + std::to_string(c.ranks_grid[2]));
  line("kokkos_tile", kokkos_tile_name(c.kokkos_tile));
  return s.str();
}

void check_same_lines(const std::string& what, const std::string& mine) {
  const std::string reference = broadcast_from(0, mine);
  const std::string differs = first_difference(mine, reference);
  if (!differs.empty())
    throw DeckError("this rank differs from rank 0 in its " + what + ": " + differs +
                    ": every rank must run the same command, deck, overrides and options");
}

void check_same_configuration(const Config& config) { check_same_lines("settings", configuration_lines(config)); }

ExitStatus classify(std::exception_ptr failure) {
  ExitStatus s;
  s.prefix = "error: ";
  try {
    std::rethrow_exception(failure);
  } catch (const AgreedExit& e) {
    s = e.status;
  } catch (const DeckError& e) {
    s.code = 2, s.message = e.what();
  } catch (const CheckpointError& e) {
    s.code = 2, s.message = e.what();
  } catch (const ResourceError& e) {
    s.code = 2, s.message = e.what();
  } catch (const std::bad_alloc& e) {
    // Host memory ran out where no plan foresaw it (an allocator's own failure, a limit set
    // with ulimit -v): still a resource the machine lacks, said with what it has.
    s.code = 2, s.message = std::string("out of host memory (") + e.what() + "); " + host_memory_text();
  } catch (const OutputError& e) {
    s.code = 4, s.message = e.what();
  } catch (const NumericalError& e) {
    s.code = 3, s.prefix = "numerical failure: ", s.message = e.what(), s.every_rank = true;
  } catch (const Interrupted& e) {
    s.code = 128 + e.signal, s.prefix = "", s.message = e.what(), s.every_rank = true;
  } catch (const std::exception& e) {
    s.code = 1, s.message = e.what();
  } catch (...) {
    s.code = 1, s.message = "an unknown exception";
  }
  if (!s.every_rank) s.rank = world_rank();  // perhaps this rank's alone: the message names it
  return s;
}

namespace {

// agreed()'s work; `name_rank`: whether a failure on some ranks only names the rank that spoke.
void agree_on_step(const std::function<void()>& step, bool name_rank) {
  if (world_size() == 1) {  // one rank agrees with itself: its exception goes on as it is
    step();
    return;
  }
  ExitStatus mine;
  mine.code = 0;
  try {
    step();
  } catch (...) {
    mine = classify(std::current_exception());
  }
  const AgreedStatus all = agree_over_ranks(mine.code);
  if (all.code == 0) return;
  // The speaking rank's words reach every rank: rank 0 prints them, whichever rank failed.
  ExitStatus agreed_status = mine;
  agreed_status.code = all.code;
  agreed_status.prefix = broadcast_from(all.rank, mine.prefix);
  agreed_status.message = broadcast_from(all.rank, mine.message);
  agreed_status.every_rank = true;
  agreed_status.rank = all.every_rank || !name_rank ? -1 : all.rank;
  throw AgreedExit(agreed_status);
}

}  // namespace

void agreed(const std::function<void()>& step) { agree_on_step(step, true); }

void agreed_on_root(const std::function<void()>& step) {
  agree_on_step(
      [&] {
        if (world_rank() == 0) step();
      },
      false);
}

std::string one_line(const std::string& text, std::size_t max) {
  std::string out;
  std::size_t quote = std::string::npos;  // where the open quoted value starts in `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    if (ch < 0x20 || ch == 0x7f)
      out += escape(ch);
    else
      out += static_cast<char>(ch);
    if (ch != '\'') continue;
    if (quote == std::string::npos) {
      // An opening quote follows a space or a bracket, not a letter ("rank's").
      const char before = i ? text[i - 1] : ' ';
      if (before == ' ' || before == '(' || before == '[' || before == '=' || before == ':' || before == ',')
        quote = out.size();
    } else {  // a quoted value ends: keep its head and tail when it is long
      const std::size_t length = out.size() - 1 - quote;
      if (length > 80) out = out.substr(0, quote + 56) + "..." + out.substr(out.size() - 1 - 20);
      quote = std::string::npos;
    }
  }
  if (out.size() > max) out = out.substr(0, max - 3) + "...";
  return out;
}

void print_failure(const ExitStatus& s) {
  if (s.message.empty()) return;
  std::string line = "halocline: ";
  if (s.rank >= 0 && world_size() > 1) line += "rank " + std::to_string(s.rank) + ": ";
  std::cerr << one_line(line + s.prefix + s.message) << '\n' << std::flush;
}

int with_output_written(int code) {
  errno = 0;  // the reason of the flush that fails, where it is this one
  std::cout.flush();
  int reason = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (reason == 0) reason = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return code;
  std::clearerr(stdout);  // the exit's own flush has nothing left to fail on
  // The reason is known where the last flush failed; an earlier write's is not kept by stdio.
  print_failure(ExitStatus{
      4, "error: ", "cannot write the standard output" + (reason != 0 ? ": " + std::string(std::strerror(reason)) : ""),
      true, -1});
  return code == 0 ? 4 : code;
}

}  // namespace halocline
