// Value accessors (and Nullable, the other way, for a parameter). libpq returns every column as
// text, so Int() and Real() parse text, and PostgreSQL booleans ("t"/"f") read as 1/0.
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "sql/store.hpp"

namespace plaudit::sql {

namespace {

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;

// Out-of-range double to integer conversion is undefined behaviour: saturate instead.
int64_t Saturate(double d) {
  if (!std::isfinite(d)) {
    return 0;
  }
  if (d >= 9223372036854775807.0) {
    return std::numeric_limits<int64_t>::max();
  }
  if (d <= -9223372036854775808.0) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(d);
}

}  // namespace

int64_t Int(const Value& v) {
  return std::visit(Overload{
                        [](std::nullptr_t) -> int64_t { return 0; },
                        [](int64_t i) { return i; },
                        [](double d) { return Saturate(d); },
                        [](const std::string& s) -> int64_t {
                          if (s == "t") {
                            return 1;
                          }
                          int64_t out = 0;
                          auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
                          if (ec == std::errc() && ptr == s.data() + s.size()) {
                            return out;
                          }
                          // "12.0" from a NUMERIC or float column.
                          double d = 0;
                          auto [dptr, dec] = std::from_chars(s.data(), s.data() + s.size(), d);
                          return dec == std::errc() ? Saturate(d) : int64_t{0};
                        },
                    },
                    v);
}

double Real(const Value& v) {
  return std::visit(Overload{
                        [](std::nullptr_t) { return 0.0; },
                        [](int64_t i) { return static_cast<double>(i); },
                        [](double d) { return d; },
                        [](const std::string& s) {
                          double d = 0;
                          auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
                          return ec == std::errc() ? d : 0.0;
                        },
                    },
                    v);
}

std::string Text(const Value& v) {
  return std::visit(Overload{
                        [](std::nullptr_t) { return std::string(); },
                        [](int64_t i) { return std::to_string(i); },
                        [](double d) {
                          char buf[64];
                          auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), d);
                          return std::string(buf, ptr);
                        },
                        [](const std::string& s) { return s; },
                    },
                    v);
}

bool IsNull(const Value& v) { return std::holds_alternative<std::nullptr_t>(v); }

std::optional<int64_t> OptionalInt(const Value& v) {
  if (IsNull(v)) {
    return std::nullopt;
  }
  return Int(v);
}

Value Nullable(const std::optional<int64_t>& id) { return id ? Value{*id} : Value{nullptr}; }

std::string InList(const std::vector<int64_t>& ids, std::vector<Value>& params) {
  std::string out = "(";
  for (size_t i = 0; i < ids.size(); ++i) {
    params.emplace_back(ids[i]);
    out += (i ? ", $" : "$") + std::to_string(params.size());
  }
  return out + ")";
}

}  // namespace plaudit::sql
