// Convenience: everything in tempo::keccak.
#pragma once

#include <tempo/keccak/keccak.hpp>
