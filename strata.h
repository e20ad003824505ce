// Strata's umbrella header: the one header users include (<strata/strata.h>).
// It only includes; every header it names compiles on its own.
#pragma once

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "core/program.h"
#include "core/rng.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "core/variable.h"
