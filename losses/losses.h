// Every loss and metric of Strata: include this for losses:: and metrics::.
#pragma once

#include "losses/accuracy_metrics.h"
#include "losses/confusion_metrics.h"
#include "losses/crossentropy.h"
#include "losses/ctc_loss.h"
#include "losses/loss.h"
#include "losses/metric.h"
#include "losses/more_losses.h"
#include "losses/probabilistic_metrics.h"
#include "losses/ranking_losses.h"
#include "losses/regression_losses.h"
#include "losses/regression_metrics.h"
#include "losses/score_metrics.h"
