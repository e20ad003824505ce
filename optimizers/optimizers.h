// Every optimizer of Strata: include this for optimizers::.
#pragma once

#include "optimizers/adadelta.h"
#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/adamax.h"
#include "optimizers/classes.h"
#include "optimizers/lion.h"
#include "optimizers/loss_scale_optimizer.h"
#include "optimizers/nadam.h"
#include "optimizers/optimizer.h"
#include "optimizers/rmsprop.h"
#include "optimizers/schedules.h"
#include "optimizers/sgd.h"
