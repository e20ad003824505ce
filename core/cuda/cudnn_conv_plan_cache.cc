#include "core/cuda/cudnn_conv_plan_cache.h"

#include <memory>

#include "core/cuda/run_context.h"

namespace strata::cuda {

ConvScratch carve(RunContext& run, const ConvPlan& plan) {
  auto* base = static_cast<char*>(run.workspace().get(plan.filter_bytes + plan.padded_bytes + plan.workspace_bytes));
  ConvScratch s;
  s.filter = reinterpret_cast<float*>(base);
  s.padded = plan.explicit_padding ? reinterpret_cast<float*>(base + plan.filter_bytes) : nullptr;
  s.workspace = base + plan.filter_bytes + plan.padded_bytes;
  return s;
}

// Here rather than in run_context.cc: a build without cuDNN has no ConvPlan, and the
// shared_ptr's deleter is bound where the cache is made.
ConvPlanCache& RunContext::conv_plans() {
  if (!conv_plans_) conv_plans_ = std::make_shared<ConvPlanCache>();
  return *conv_plans_;
}

}  // namespace strata::cuda
