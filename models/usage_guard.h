// UsageGuard: who may use one Model at the same time (docs/concurrency.md).
//
// predict and predict_on_batch only read the model's variables, each run on its own
// execution state: any number of threads share the model. fit, evaluate, compile,
// load_weights and the *_on_batch steps change it (variables, metric accumulators, the
// compiled programs): they hold it alone. Starting one while another thread predicts,
// or predicting while another thread trains, throws an Error saying which call holds the
// model — never a data race. The thread that holds the model may call anything on it
// (a callback that predicts or evaluates during fit).
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace strata {

class UsageGuard {
 public:
  // While a Scope lives, its call holds the model (shared or alone).
  class Scope {
   public:
    Scope(Scope&& other) noexcept : guard_(other.guard_), exclusive_(other.exclusive_) { other.guard_ = nullptr; }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope& operator=(Scope&&) = delete;
    ~Scope();

   private:
    friend class UsageGuard;
    Scope(UsageGuard* guard, bool exclusive) : guard_(guard), exclusive_(exclusive) {}
    UsageGuard* guard_;
    bool exclusive_;
  };

  // `what` names the call ("predict", "fit", ...): a string literal; `model` the model,
  // for the message.
  Scope share(const char* what, const std::string& model);
  Scope exclusive(const char* what, const std::string& model);

 private:
  // Every check is sequentially consistent: a sharer counts itself, then reads the owner;
  // an exclusive call takes ownership, then reads the count — so at least one of two
  // calls that race sees the other.
  std::atomic<int> sharers_{0};
  std::atomic<std::thread::id> owner_{};
  std::atomic<const char*> owner_call_{""};
  int depth_ = 0;  // nested exclusive calls of the owner; touched only by the owner
};

}  // namespace strata
