// tempo: a heartbeat-scheduled fork/join runtime. The one header to include.
#pragma once
#include "tempo/options.hpp"
#include "tempo/task.hpp"
#include "tempo/thread_pool.hpp"
#include "tempo/parallel.hpp"
