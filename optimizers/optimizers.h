// Every optimizer of Strata: include this for optimizers::.
#pragma once

#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/optimizer.h"
#include "optimizers/rmsprop.h"
#include "optimizers/sgd.h"
