#include "plan.hpp"

#include <stdexcept>

namespace tempo::mpi::detail {

namespace {
[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("tempo::mpi::run: " + what); }
}  // namespace

std::size_t validate(std::span<const gpu::Operand> inputs, std::size_t expected_inputs, std::size_t out_stride,
                     std::size_t out_size) {
  if (inputs.size() != expected_inputs)
    bad("the op takes " + std::to_string(expected_inputs) + " inputs, the batch has " +
        std::to_string(inputs.size()));
  if (inputs.empty() || inputs.size() > gpu::kMaxInputs) bad("an op needs 1 to 4 inputs");
  std::size_t n = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const gpu::Operand& in = inputs[i];
    const std::string name = "input " + std::to_string(i);
    std::size_t count = 0;
    if (in.is_fixed()) {
      if (in.stride == 0) bad(name + " has stride 0 (a fixed input needs a positive stride)");
      if (in.data.size() % in.stride != 0)
        bad(name + " is " + std::to_string(in.data.size()) + " bytes, not a multiple of its stride " +
            std::to_string(in.stride));
      count = in.data.size() / in.stride;
    } else {
      if (in.offsets.front() != 0) bad(name + ": offsets[0] is not 0");
      if (in.offsets.back() != in.data.size())
        bad(name + ": the last offset is " + std::to_string(in.offsets.back()) + ", the data has " +
            std::to_string(in.data.size()) + " bytes");
      for (std::size_t k = 1; k < in.offsets.size(); ++k)
        if (in.offsets[k] < in.offsets[k - 1]) bad(name + ": offsets decrease at item " + std::to_string(k - 1));
      count = in.offsets.size() - 1;
    }
    if (i == 0) n = count;
    if (count != n)
      bad(name + " has " + std::to_string(count) + " items, input 0 has " + std::to_string(n));
  }
  if (out_size != n * out_stride)
    bad("out is " + std::to_string(out_size) + " bytes, the batch needs " + std::to_string(n) + " x " +
        std::to_string(out_stride));
  return n;
}

std::vector<std::uint64_t> cut(std::size_t n, std::size_t parts, bool uniform,
                               const std::function<double(std::size_t)>& work) {
  std::vector<std::uint64_t> cuts(parts + 1, 0);
  cuts[parts] = n;
  if (uniform || n == 0) {
    // n * j / parts without overflow for any n below 2^64 / parts.
    for (std::size_t j = 1; j < parts; ++j) cuts[j] = (n / parts) * j + (n % parts) * j / parts;
    return cuts;
  }
  // Two passes (total, then the cuts) instead of a prefix array: 8 bytes per item saved.
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += work(i);
  double acc = 0;
  std::size_t j = 1;
  for (std::size_t i = 0; i < n && j < parts; ++i) {
    // Item i goes to the piece where its midpoint falls: a heavy item does not drag a
    // whole piece's worth of light items along with it.
    const double w = work(i);
    while (j < parts && acc + w / 2 > total * static_cast<double>(j) / static_cast<double>(parts)) cuts[j++] = i;
    acc += w;
  }
  while (j < parts) cuts[j++] = n;
  return cuts;
}

std::vector<std::uint64_t> plan_rows(std::span<const std::uint64_t> cuts, std::span<const gpu::Operand> inputs) {
  const std::size_t w = 1 + inputs.size();
  std::vector<std::uint64_t> rows(cuts.size() * w);
  for (std::size_t j = 0; j < cuts.size(); ++j) {
    rows[j * w] = cuts[j];
    for (std::size_t i = 0; i < inputs.size(); ++i)
      rows[j * w + 1 + i] = inputs[i].is_fixed() ? cuts[j] * inputs[i].stride : inputs[i].offsets[cuts[j]];
  }
  return rows;
}

}  // namespace tempo::mpi::detail
