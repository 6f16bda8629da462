// tempo::ntt -- negacyclic NTT over Z_q[X]/(X^n + 1) on the CPU (portable, AVX2, AVX-512)
// and on CUDA devices. See tempo/ntt/plan.hpp for the transform and its order.
#pragma once

#include <tempo/ntt/plan.hpp>
#include <tempo/ntt/batch.hpp>
