#include "chat/jinja/value_budget.h"

#include <cstdio>
#include <string>

#include "chat/jinja/value.h"

namespace kvchat::jinja {
namespace {

thread_local ValueBudget* t_current = nullptr;

std::string mib(std::size_t bytes) {
  char buf[32];
  if (bytes % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%zu MiB", bytes >> 20);
  else
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  return buf;
}

}  // namespace

ValueBudget::ValueBudget(std::size_t max_bytes, std::size_t max_string_bytes, double max_seconds)
    : max_bytes_(max_bytes),
      max_string_bytes_(max_string_bytes),
      max_seconds_(max_seconds),
      deadline_(std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(max_seconds))) {}

void ValueBudget::fail_time() const {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", max_seconds_);
  throw RenderError(std::string("template took longer than ") + seconds + " s to render");
}

void ValueBudget::check_deadline() const {
  if (std::chrono::steady_clock::now() > deadline_) fail_time();
}

void ValueBudget::charge(std::size_t bytes) {
  check_deadline();
  if (bytes > max_bytes_ - used_) {
    throw RenderError("template exceeded its memory budget of " + mib(max_bytes_) +
                      " (values built while rendering)");
  }
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
}

void ValueBudget::credit(std::size_t bytes) noexcept { used_ -= bytes < used_ ? bytes : used_; }

void ValueBudget::tick() {
  if (++ticks_ % 256 == 0) check_deadline();
}

void ValueBudget::check_string(std::size_t bytes) const {
  if (bytes > max_string_bytes_) {
    throw RenderError("template output exceeds the size limit of " + mib(max_string_bytes_) +
                      " (one string or list)");
  }
}

ValueBudget* ValueBudget::current() { return t_current; }

ValueBudget::Active::Active(ValueBudget& budget) : previous_(t_current) { t_current = &budget; }
ValueBudget::Active::~Active() { t_current = previous_; }

Charge& Charge::operator=(Charge&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = other.budget_;
    bytes_ = other.bytes_;
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

void Charge::add(std::size_t bytes) {
  if (!budget_) budget_ = t_current;
  if (!budget_ || bytes == 0) return;
  budget_->charge(bytes);
  bytes_ += bytes;
}

void Charge::release() noexcept {
  if (budget_) budget_->credit(bytes_);
  budget_ = nullptr;
  bytes_ = 0;
}

void budget_tick() {
  if (t_current) t_current->tick();
}

void check_string_size(std::size_t bytes) {
  if (t_current) t_current->check_string(bytes);
}

}  // namespace kvchat::jinja
