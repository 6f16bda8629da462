// Umbrella header for tempo::crypto (the Keccak family on the CPU).
#pragma once

#include <tempo/crypto/algorithm.hpp>
#include <tempo/crypto/batch.hpp>
#include <tempo/crypto/kangaroo_twelve.hpp>
#include <tempo/crypto/permutation.hpp>
#include <tempo/crypto/sponge.hpp>
