// Umbrella header for tempo::keccak (the Keccak family on the CPU).
#pragma once

#include <tempo/keccak/algorithm.hpp>
#include <tempo/keccak/batch.hpp>
#include <tempo/keccak/kangaroo_twelve.hpp>
#include <tempo/keccak/permutation.hpp>
#include <tempo/keccak/sponge.hpp>
