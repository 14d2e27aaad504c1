// The memory and wall time one render may take. Every string, list, dict and function
// a template builds is charged to the budget of the render running on its thread while
// it lives (and credited back when it dies), so what a hostile template keeps alive is
// bounded however it builds it; the clock is read at every charge, so no run of
// allocations outlasts the time limit. Builtins that loop without allocating (sorting,
// comparing, de-duplicating) call tick() so that they cannot outlast it either.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace kvchat::jinja {

class ValueBudget {
 public:
  ValueBudget(std::size_t max_bytes, std::size_t max_string_bytes, double max_seconds);
  ValueBudget(const ValueBudget&) = delete;
  ValueBudget& operator=(const ValueBudget&) = delete;

  // Counts `bytes` more; throws RenderError (naming the limit) when that passes the
  // budget or the deadline has passed. Nothing is counted when it throws.
  void charge(std::size_t bytes);
  void credit(std::size_t bytes) noexcept;
  // Throws RenderError once the deadline has passed (reads the clock every 256 calls).
  void tick();
  void check_deadline() const;
  // Throws RenderError when one string (or one list's item slots) would pass
  // max_string_bytes: "template output exceeds the size limit".
  void check_string(std::size_t bytes) const;

  std::size_t used() const { return used_; }
  std::size_t peak() const { return peak_; }
  std::size_t max_bytes() const { return max_bytes_; }
  std::size_t max_string_bytes() const { return max_string_bytes_; }

  // The budget of the render running on this thread (nullptr outside a render).
  static ValueBudget* current();

  // Makes `budget` the current one for its lifetime (renders do not nest, but a
  // previous one is restored anyway).
  class Active {
   public:
    explicit Active(ValueBudget& budget);
    ~Active();
    Active(const Active&) = delete;
    Active& operator=(const Active&) = delete;

   private:
    ValueBudget* previous_;
  };

 private:
  [[noreturn]] void fail_time() const;

  std::size_t max_bytes_;
  std::size_t max_string_bytes_;
  double max_seconds_;
  std::chrono::steady_clock::time_point deadline_;
  std::size_t used_ = 0;
  std::size_t peak_ = 0;
  std::uint32_t ticks_ = 0;
};

// Bytes held against the current render's budget while this object lives: a member of
// each string, list, dict and function value, or a local guard for a builtin's
// scratch buffer (`Charge scratch(n * sizeof(char32_t));` before decoding). Outside a
// render (values built while parsing, or the caller's messages) it counts nothing.
class Charge {
 public:
  Charge() = default;
  explicit Charge(std::size_t bytes) { add(bytes); }
  Charge(Charge&& other) noexcept : budget_(other.budget_), bytes_(other.bytes_) {
    other.budget_ = nullptr;
    other.bytes_ = 0;
  }
  Charge& operator=(Charge&& other) noexcept;
  Charge(const Charge&) = delete;
  Charge& operator=(const Charge&) = delete;
  ~Charge() { release(); }

  // Counts `bytes` more (throws as ValueBudget::charge does).
  void add(std::size_t bytes);
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  ValueBudget* budget_ = nullptr;
  std::size_t bytes_ = 0;
};

// ValueBudget::current()->tick() / check_string(), or nothing outside a render.
void budget_tick();
void check_string_size(std::size_t bytes);

// What the heap takes for one allocation of `bytes` (malloc's header and rounding),
// so that many small values are not counted as free.
inline constexpr std::size_t heap_bytes(std::size_t bytes) {
  return ((bytes + 15) & ~std::size_t{15}) + 16;
}

}  // namespace kvchat::jinja
