#pragma once
// Expected failures are values, not exceptions (see STYLE.md): every service and store call
// returns Result<T>. The error codes are canonical and transport-neutral; only
// src/http/error_map knows which HTTP status each one becomes.
#include <string>
#include <string_view>
#include <tl/expected.hpp>
#include <utility>

namespace plaudit {

enum class ErrorCode {
  kInvalidArgument,   // malformed or out-of-range input
  kInvalidJson,       // body is not JSON (or not the expected JSON shape at the top)
  kNotFound,          // no such object, or one the caller may not see
  kAlreadyExists,     // unique constraint (username taken)
  kPermissionDenied,  // authenticated but not allowed
  kDuplicate,         // the same comment again from its writer (API.md "Moderation")
  kBanned,            // a banned user's write
  kUnauthenticated,   // missing, invalid or expired credentials
  kRateLimited,       // too many requests
  kUnavailable,       // Redis or the database cannot be reached (or timed out)
  kInternal,          // a bug or an unexpected reply
};

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  int retry_after_seconds = 0;  // for kRateLimited
  // A database deadlock or serialization failure: the server undid the whole transaction,
  // and running it again from the start may succeed (sql::Store::Run does, twice at most).
  bool retryable = false;

  friend bool operator==(const Error&, const Error&) = default;
};

// [[nodiscard]]: a call whose failure is dropped unread is a bug the compiler now names
// (tl::expected 1.0 carries no such attribute, so these are thin classes over it, not
// aliases; any tl::expected<T, Error> converts).
template <class T>
class [[nodiscard]] Result : public tl::expected<T, Error> {
 public:
  using tl::expected<T, Error>::expected;
  Result(const tl::expected<T, Error>& e) : tl::expected<T, Error>(e) {}
  Result(tl::expected<T, Error>&& e) : tl::expected<T, Error>(std::move(e)) {}
  // tl::expected's own == would be ambiguous between two Results (its value overload matches).
  friend bool operator==(const Result& a, const Result& b) {
    return static_cast<const tl::expected<T, Error>&>(a) ==
           static_cast<const tl::expected<T, Error>&>(b);
  }
};

// Success of a Result<void>-like call.
using Status = Result<void>;

inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

// The one way a failure is handed up (STYLE: errors are values). In a coroutine returning
// Awaitable<Result<T>> or Awaitable<Status>, PL_CO_TRY evaluates `expr` (a Result or Status)
// into a named variable (GCC 12 wants awaitables' results named), returns its error if it
// failed, and otherwise declares `decl` from its value; PL_CO_CHECK only returns the error.
// PL_TRY and PL_CHECK are the same in a plain function returning Result<T> or Status:
//   PL_CO_TRY(auto row, co_await table_.Find(id));
//   PL_CO_CHECK(co_await cache_.Drop(id));
//   PL_TRY(auto n, ParseCount(text));
#define PL_CONCAT_INNER(a, b) a##b
#define PL_CONCAT(a, b) PL_CONCAT_INNER(a, b)
// NOLINTBEGIN(bugprone-macro-parentheses): `decl` is a declaration and `tmp` the name it
// declares; neither can be parenthesised.
#define PL_CO_TRY(decl, expr) PL_CO_TRY_IMPL(PL_CONCAT(pl_try_, __LINE__), decl, expr)
#define PL_CO_TRY_IMPL(tmp, decl, expr)                 \
  auto tmp = (expr);                                    \
  if (!(tmp)) {                                         \
    co_return ::tl::unexpected(std::move(tmp).error()); \
  }                                                     \
  decl = std::move(*(tmp))
#define PL_TRY(decl, expr) PL_TRY_IMPL(PL_CONCAT(pl_try_, __LINE__), decl, expr)
#define PL_TRY_IMPL(tmp, decl, expr)                 \
  auto tmp = (expr);                                 \
  if (!(tmp)) {                                      \
    return ::tl::unexpected(std::move(tmp).error()); \
  }                                                  \
  decl = std::move(*(tmp))
// NOLINTEND(bugprone-macro-parentheses)
// The CHECKs take a result by reference when `expr` names one (decltype(auto) of a
// parenthesised name is a reference: no copy on success) and by value when it is a call's
// (no temporary is bound to a reference across a suspension point: GCC 12's coroutines).
#define PL_CO_CHECK(expr)                                      \
  do {                                                         \
    if (decltype(auto) pl_check = (expr); !pl_check) {         \
      co_return ::tl::unexpected(std::move(pl_check).error()); \
    }                                                          \
  } while (0)
#define PL_CHECK(expr)                                      \
  do {                                                      \
    if (decltype(auto) pl_check = (expr); !pl_check) {      \
      return ::tl::unexpected(std::move(pl_check).error()); \
    }                                                       \
  } while (0)

}  // namespace plaudit
