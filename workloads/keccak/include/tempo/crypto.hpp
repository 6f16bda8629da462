// Convenience: everything in tempo::crypto.
#pragma once

#include <tempo/crypto/keccak.hpp>
