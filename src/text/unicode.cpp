#include "text/unicode.hpp"

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <memory>
#include <vector>

namespace plaudit::text {
namespace {

// Calls `f(code point)` for each code point of `s`; false (stopping) at invalid UTF-8 or when
// `f` returns false.
template <typename F>
bool ForEachPoint(std::string_view s, F f) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    UChar32 c;
    // The increments in conditions are ICU's own, inside U8_NEXT.
    // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions)
    U8_NEXT(p, i, n, c);
    if (c < 0) {
      return false;
    }
    if (!f(c)) {
      return false;
    }
  }
  return true;
}

bool IsInvisible(UChar32 c) {
  if (u_hasBinaryProperty(c, UCHAR_WHITE_SPACE) ||
      u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || c == 0x2800) {
    return true;
  }
  const int8_t type = u_charType(c);
  return type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK || type == U_COMBINING_SPACING_MARK;
}

bool IsBidiEmbedding(UChar32 c) {
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

using U16 = std::vector<UChar>;

Result<U16> ToU16(std::string_view s) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t len = 0;
  u_strFromUTF8(nullptr, 0, &len, s.data(), static_cast<int32_t>(s.size()), &status);
  if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) {
    return Fail(ErrorCode::kInvalidArgument, "text must be valid UTF-8");
  }
  status = U_ZERO_ERROR;
  U16 out(static_cast<size_t>(len) + 1);
  u_strFromUTF8(out.data(), static_cast<int32_t>(out.size()), &len, s.data(),
                static_cast<int32_t>(s.size()), &status);
  if (U_FAILURE(status)) {
    return Fail(ErrorCode::kInvalidArgument, "text must be valid UTF-8");
  }
  out.resize(static_cast<size_t>(len));
  return out;
}

Result<std::string> ToU8(const U16& s) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t len = 0;
  u_strToUTF8(nullptr, 0, &len, s.data(), static_cast<int32_t>(s.size()), &status);
  if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) {
    return Fail(ErrorCode::kInternal, "could not encode a name skeleton");
  }
  status = U_ZERO_ERROR;
  std::string out(static_cast<size_t>(len) + 1, '\0');
  u_strToUTF8(out.data(), static_cast<int32_t>(out.size()), &len, s.data(),
              static_cast<int32_t>(s.size()), &status);
  if (U_FAILURE(status)) {
    return Fail(ErrorCode::kInternal, "could not encode a name skeleton");
  }
  out.resize(static_cast<size_t>(len));
  return out;
}

// ICU's sizing protocol: ask with the buffer, grow once when it was too small.
template <typename Call>
Result<U16> Grow(const U16& in, Call call) {
  U16 out(in.size() * 2 + 16);
  UErrorCode status = U_ZERO_ERROR;
  int32_t len = call(in, out, status);
  if (status == U_BUFFER_OVERFLOW_ERROR) {
    out.resize(static_cast<size_t>(len) + 1);
    status = U_ZERO_ERROR;
    len = call(in, out, status);
  }
  if (U_FAILURE(status)) {
    return Fail(ErrorCode::kInternal, "could not fold a name");
  }
  out.resize(static_cast<size_t>(len));
  return out;
}

Result<U16> FoldCase(const U16& in) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* nfkc_cf = unorm2_getNFKCCasefoldInstance(&status);
  if (U_FAILURE(status)) {
    return Fail(ErrorCode::kInternal, "ICU has no NFKC_Casefold data");
  }
  return Grow(in, [nfkc_cf](const U16& src, U16& dst, UErrorCode& st) {
    return unorm2_normalize(nfkc_cf, src.data(), static_cast<int32_t>(src.size()), dst.data(),
                            static_cast<int32_t>(dst.size()), &st);
  });
}

struct SpoofCloser {
  void operator()(USpoofChecker* c) const { uspoof_close(c); }
};

// One checker per thread: skeletons only read it, but ICU documents a checker's use from
// several threads only for some calls.
USpoofChecker* Checker() {
  thread_local std::unique_ptr<USpoofChecker, SpoofCloser> checker = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<USpoofChecker, SpoofCloser> c(uspoof_open(&status));
    if (U_FAILURE(status)) {
      c.reset();
    }
    return c;
  }();
  return checker.get();
}

Result<U16> Skeleton(const U16& in) {
  USpoofChecker* checker = Checker();
  if (checker == nullptr) {
    return Fail(ErrorCode::kInternal, "ICU spoof checker unavailable");
  }
  return Grow(in, [checker](const U16& src, U16& dst, UErrorCode& st) {
    return uspoof_getSkeleton(checker, 0, src.data(), static_cast<int32_t>(src.size()), dst.data(),
                              static_cast<int32_t>(dst.size()), &st);
  });
}

}  // namespace

bool IsBlank(std::string_view s) {
  return ForEachPoint(s, [](UChar32 c) { return IsInvisible(c); });
}

bool HasBidiControl(std::string_view s) {
  bool found = false;
  ForEachPoint(s, [&found](UChar32 c) {
    found = u_hasBinaryProperty(c, UCHAR_BIDI_CONTROL);
    return !found;
  });
  return found;
}

std::string StripBidiEmbeddings(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const auto n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    const int32_t start = i;
    UChar32 c;
    // The increments in conditions are ICU's own, inside U8_NEXT.
    // NOLINTNEXTLINE(bugprone-inc-dec-in-conditions)
    U8_NEXT(p, i, n, c);
    if (c >= 0 && IsBidiEmbedding(c)) {
      continue;
    }
    out.append(s.substr(static_cast<size_t>(start), static_cast<size_t>(i - start)));
  }
  return out;
}

Result<std::string> FoldCase(std::string_view s) {
  PL_TRY(auto u, ToU16(s));
  PL_TRY(auto folded, FoldCase(u));
  return ToU8(folded);
}

Result<std::string> NameSkeleton(std::string_view name) {
  PL_TRY(auto u, ToU16(name));
  PL_TRY(auto folded, FoldCase(u));
  PL_TRY(auto skeleton, Skeleton(folded));
  PL_TRY(auto refolded, FoldCase(skeleton));
  PL_TRY(auto text, ToU8(refolded));
  const std::string& utf8 = text;
  // White space runs as one space, none at the ends: "a  b" and " a b" are one name.
  std::string out;
  out.reserve(utf8.size());
  bool space = false;
  ForEachPoint(utf8, [&](UChar32 c) {
    if (u_hasBinaryProperty(c, UCHAR_WHITE_SPACE)) {
      space = !out.empty();
      return true;
    }
    if (space) {
      out.push_back(' ');
    }
    space = false;
    char buf[4];
    int32_t len = 0;
    U8_APPEND_UNSAFE(reinterpret_cast<uint8_t*>(buf), len, c);
    out.append(buf, static_cast<size_t>(len));
    return true;
  });
  return out;
}

}  // namespace plaudit::text
