#include "core/measure/pass_pause.hpp"

#include <utility>

namespace kprof::detail {

void PassPause::arm(PassControl* passes) noexcept {
  std::lock_guard lock(pass_mutex_);
  armed_.store(passes);
}

bool PassPause::pause() noexcept {
  if (armed_.load() == nullptr) return false;
  pass_mutex_.lock();
  PassControl* passes = armed_.load();            // as armed now, for resume() too
  if (passes == nullptr || !passes->in_pass()) {  // no session: unmeasured calls, between runs
    pass_mutex_.unlock();
    return false;
  }
  paused_ = passes;
  paused_at_ = std::chrono::steady_clock::now();
  try {
    passes->end_pass();
    return true;
  } catch (...) {
    keep(std::current_exception());
    pass_mutex_.unlock();
    return false;
  }
}

void PassPause::resume() noexcept {
  try {
    paused_->start_pass();
  } catch (...) {
    keep(std::current_exception());
  }
  paused_ns_.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - paused_at_)
                           .count(),
                       std::memory_order_relaxed);
  pass_mutex_.unlock();
}

void PassPause::keep(std::exception_ptr error) noexcept {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::move(error);
}

void PassPause::rethrow() {
  std::exception_ptr error;
  {
    std::lock_guard lock(error_mutex_);
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

void PassPause::reset() noexcept {
  std::lock_guard lock(error_mutex_);
  error_ = nullptr;
  paused_ns_.store(0);
}

}  // namespace kprof::detail
