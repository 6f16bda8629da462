// tempo::gpu: the offload engine. Workloads (tempo::keccak, tempo::ntt, tempo::tfhe,
// tempo::faest) describe their batch operations as BatchOp and run them through an
// Engine; users can do the same with their own kernels (docs/gpu-engine.md).
#pragma once

#include <tempo/gpu/backend.hpp>
#include <tempo/gpu/cost_model.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/gpu/op.hpp>
