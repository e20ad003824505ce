#include "models/usage_guard.h"

#include "core/error.h"

namespace strata {

UsageGuard::Scope::~Scope() {
  if (!guard_) return;
  if (!exclusive_) {
    guard_->sharers_.fetch_sub(1);
  } else if (guard_->depth_ > 0) {
    --guard_->depth_;
  } else {
    guard_->owner_call_.store("");
    guard_->owner_.store(std::thread::id{});
  }
}

UsageGuard::Scope UsageGuard::share(const char* what, const std::string& model) {
  sharers_.fetch_add(1);
  const std::thread::id owner = owner_.load();
  if (owner != std::thread::id{} && owner != std::this_thread::get_id()) {
    std::string holder = owner_call_.load();
    if (holder.empty()) holder = "fit, evaluate or compile";  // the owner is just starting
    sharers_.fetch_sub(1);
    throw Error(std::string(what) + " on model '" + model + "' while another thread runs " + holder +
                " on it: predict may run on many threads at once, but not while the model is trained, "
                "evaluated or compiled; wait for " + holder + " to return");
  }
  return Scope(this, false);
}

UsageGuard::Scope UsageGuard::exclusive(const char* what, const std::string& model) {
  const std::thread::id me = std::this_thread::get_id();
  if (owner_.load() == me) {
    ++depth_;
    return Scope(this, true);
  }
  std::thread::id none{};
  if (!owner_.compare_exchange_strong(none, me)) {
    std::string holder = owner_call_.load();
    if (holder.empty()) holder = "fit, evaluate or compile";
    throw Error(std::string(what) + " on model '" + model + "' while another thread runs " + holder +
                " on it: fit, evaluate, compile, load_weights and the *_on_batch steps need the model to "
                "themselves");
  }
  owner_call_.store(what);
  if (sharers_.load() > 0) {
    owner_call_.store("");
    owner_.store(std::thread::id{});
    throw Error(std::string(what) + " on model '" + model +
                "' while other threads are predicting with it: predict may run on many threads at once, but "
                "fit, evaluate, compile, load_weights and the *_on_batch steps need the model to themselves; "
                "wait for the predict calls to return");
  }
  return Scope(this, true);
}

}  // namespace strata
