// The root's plan: the batch cut into ranks * subchunks contiguous pieces of equal work,
// and each piece's first item and first byte of every input. Pure code (no MPI), tested
// on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/op.hpp>

namespace tempo::mpi::detail {

// Checks a root batch (std::invalid_argument naming the problem) and returns its item count.
std::size_t validate(std::span<const gpu::Operand> inputs, std::size_t expected_inputs, std::size_t out_stride,
                     std::size_t out_size);

// Item boundaries of `parts` contiguous pieces of [0, n) with equal total work:
// cuts[0] = 0, cuts[parts] = n, non-decreasing. work(i) is item i's work (> 0); when
// `uniform`, every item weighs the same and work is not called.
std::vector<std::uint64_t> cut(std::size_t n, std::size_t parts, bool uniform,
                               const std::function<double(std::size_t)>& work);

// Rows of (1 + inputs) numbers, one row per cut: the item, then for each input the byte
// where that item starts (item * stride, or offsets[item]).
std::vector<std::uint64_t> plan_rows(std::span<const std::uint64_t> cuts, std::span<const gpu::Operand> inputs);

}  // namespace tempo::mpi::detail
