// Transfer accounting: every host-device copy a backend makes is counted here, by
// direction, host-memory kind and purpose, so the report can say what crossed the bus.
#pragma once

#include <array>
#include <cstddef>

namespace halocline {

enum class Direction { HostToDevice = 0, DeviceToHost = 1 };
enum class HostKind { Pinned = 0, Pageable = 1, Managed = 2 };  // managed: prefetches
// step: the state moved by an owner model inside the step loop; halo: the staged halo
// exchange's messages.
enum class Purpose { Setup = 0, Step = 1, Output = 2, Halo = 3 };
constexpr int kPurposes = 4;

struct TransferCount {
  long calls = 0;
  std::size_t bytes = 0;
  TransferCount& operator+=(const TransferCount& o) {
    calls += o.calls;
    bytes += o.bytes;
    return *this;
  }
};

class TransferLog {
 public:
  void add(Direction d, HostKind k, Purpose p, std::size_t bytes) {
    TransferCount& c = counts_[static_cast<int>(d)][static_cast<int>(k)][static_cast<int>(p)];
    ++c.calls;
    c.bytes += bytes;
  }
  TransferCount get(Direction d, HostKind k, Purpose p) const {
    return counts_[static_cast<int>(d)][static_cast<int>(k)][static_cast<int>(p)];
  }
  // Sum over every host kind.
  TransferCount get(Direction d, Purpose p) const {
    TransferCount sum;
    for (int k = 0; k < 3; ++k) sum += counts_[static_cast<int>(d)][k][static_cast<int>(p)];
    return sum;
  }

 private:
  std::array<std::array<std::array<TransferCount, kPurposes>, 3>, 2> counts_{};
};

}  // namespace halocline
