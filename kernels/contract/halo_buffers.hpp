// The buffers of a backend's halo exchange, written once for every backend: per direction
// and face, the device send and receive buffers and, for the staged strategies, their host
// staging buffers; and which of them MPI reads and writes. Each backend supplies its own
// buffer types (anything with get()) and how to make one.
#pragma once

#include <cstddef>

#include "base/grid.hpp"
#include "kernels/contract/backend.hpp"
#include "kernels/contract/footprint.hpp"
#include "kernels/halo.hpp"

namespace halocline {

template <class DeviceBuffer, class HostBuffer>
struct HaloBuffers {
  HaloSetup setup;
  DeviceBuffer send[3][2], receive[3][2];
  HostBuffer send_host[3][2], receive_host[3][2];
  std::size_t device_bytes = 0;  // of send and receive, as configure made them

  // The bytes of the device buffers configure makes for `s` (halo_buffer_bytes): what a
  // backend checks before making them, and counts in its bytes_allocated() after.
  static std::size_t device_bytes_of(const HaloSetup& s, const Grid& g, std::size_t value_bytes) {
    return saturated_bytes(halo_buffer_bytes(g, {s.any(0), s.any(1), s.any(2)}, value_bytes));
  }

  // Keeps `s` and makes the buffers of every direction with an exchanged face, one
  // message of `value_bytes`-sized values each: `device(bytes, name)` makes a device
  // buffer, `host(bytes, memory, name)` a host one (the staged strategies only; separate
  // from the device ones even where the device is the host, so that every strategy does
  // the same work everywhere).
  template <class MakeDevice, class MakeHost>
  void configure(const HaloSetup& s, const Grid& g, std::size_t value_bytes, MakeDevice device, MakeHost host) {
    setup = s;
    device_bytes = device_bytes_of(s, g, value_bytes);
    for (int d = 0; d < 3; ++d) {
      if (!s.any(d)) continue;
      const std::size_t bytes = halo_message_size(g, d) * value_bytes;
      for (int side = 0; side < 2; ++side) {
        send[d][side] = device(bytes, "halo_send");
        receive[d][side] = device(bytes, "halo_receive");
        if (!s.staged()) continue;
        send_host[d][side] = host(bytes, s.host_memory, "halo_send_host");
        receive_host[d][side] = host(bytes, s.host_memory, "halo_receive_host");
      }
    }
  }

  // What MPI reads and writes for direction d: the host staging buffers when the strategy
  // stages, the device buffers otherwise (gpu-aware).
  HaloMessages messages(int d, const Grid& g, std::size_t value_bytes) {
    const bool staged = setup.staged();
    void* out[2];
    void* in[2];
    for (int side = 0; side < 2; ++side) {
      out[side] = staged ? send_host[d][side].get() : send[d][side].get();
      in[side] = staged ? receive_host[d][side].get() : receive[d][side].get();
    }
    return setup.messages(d, out, in, halo_message_size(g, d) * value_bytes);
  }
};

}  // namespace halocline
