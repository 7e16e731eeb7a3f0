#include "cuda/flush_pause.hpp"

#include <utility>

namespace kprof::detail {

void FlushPause::arm(RangeProfiler* profiler) noexcept {
  std::lock_guard lock(pass_mutex_);
  profiler_.store(profiler);
}

bool FlushPause::pause() noexcept {
  if (profiler_.load() == nullptr) return false;
  pass_mutex_.lock();
  RangeProfiler* profiler = profiler_.load();         // as armed now, for resume() too
  if (profiler == nullptr || !profiler->in_pass()) {  // no session: unmeasured calls, between runs
    pass_mutex_.unlock();
    return false;
  }
  paused_ = profiler;
  paused_at_ = std::chrono::steady_clock::now();
  try {
    profiler->end_pass();
    return true;
  } catch (...) {
    keep(std::current_exception());
    pass_mutex_.unlock();
    return false;
  }
}

void FlushPause::resume() noexcept {
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

void FlushPause::keep(std::exception_ptr error) noexcept {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::move(error);
}

void FlushPause::rethrow() {
  std::exception_ptr error;
  {
    std::lock_guard lock(error_mutex_);
    error = std::exchange(error_, nullptr);
  }
  if (error) std::rethrow_exception(error);
}

void FlushPause::reset() noexcept {
  std::lock_guard lock(error_mutex_);
  error_ = nullptr;
  paused_ns_.store(0);
}

}  // namespace kprof::detail
