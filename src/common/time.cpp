#include "common/time.hpp"

#include <chrono>
#include <cstring>
#include <limits>

namespace plaudit {

int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// std::chrono's calendar, not gmtime_r + snprintf: gmtime_r takes glibc's timezone lock and
// snprintf parses its format on every call, and an article list formats three times per
// article (both showed in the list page's profile).
// The date of the last day written is kept (per thread): a page's times mostly share a few
// days, and the calendar's civil-date arithmetic was most of a time's cost.
void AppendTimeMs(std::string& out, int64_t epoch_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds{epoch_ms}};
  const auto day = floor<days>(t);
  const hh_mm_ss<milliseconds> hms{t - day};
  constexpr std::string_view kShape = "0000-00-00T00:00:00.000Z";
  const size_t at = out.size();
  out.append(kShape);
  char* const p = out.data() + at;
  auto put = [p](size_t pos, int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i) {
      p[pos + static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  thread_local int64_t last_day = std::numeric_limits<int64_t>::min();
  thread_local char last_date[10];
  const int64_t day_number = day.time_since_epoch().count();
  if (day_number == last_day) {
    std::memcpy(p, last_date, sizeof last_date);
  } else {
    const year_month_day ymd{day};
    put(0, static_cast<int>(ymd.year()), 4);
    put(5, static_cast<unsigned>(ymd.month()), 2);
    put(8, static_cast<unsigned>(ymd.day()), 2);
    std::memcpy(last_date, p, sizeof last_date);
    last_day = day_number;
  }
  put(11, hms.hours().count(), 2);
  put(14, hms.minutes().count(), 2);
  put(17, hms.seconds().count(), 2);
  put(20, hms.subseconds().count(), 3);
}

std::optional<int64_t> ParseTimeMs(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)
  auto digits = [&t](size_t at, size_t n) -> std::optional<int> {
    if (at + n > t.size()) {
      return std::nullopt;
    }
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') {
        return std::nullopt;
      }
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  if (t.size() < 20) {
    return std::nullopt;
  }
  // The zone: Z, or an offset by which the time is ahead of (+) or behind (-) UTC.
  size_t zone = t.size() - 1;
  int64_t offset_ms = 0;
  if (t.back() != 'Z' && t.back() != 'z') {
    zone = t.size() - 6;
    if (t.size() < 25 || (t[zone] != '+' && t[zone] != '-') || t[zone + 3] != ':') {
      return std::nullopt;
    }
    auto oh = digits(zone + 1, 2), om = digits(zone + 4, 2);
    if (!oh || !om || *oh > 23 || *om > 59) {
      return std::nullopt;
    }
    offset_ms = (int64_t{*oh} * 60 + *om) * 60'000 * (t[zone] == '-' ? -1 : 1);
  }
  if (t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != 't') || t[13] != ':' ||
      t[16] != ':') {
    return std::nullopt;
  }
  auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  auto hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 ||
      *day < 1 || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  int64_t ms = 0;
  if (zone > 19) {
    if (t[19] != '.' || zone == 20) {
      return std::nullopt;
    }
    int64_t scale = 100;
    for (size_t i = 20; i < zone; ++i) {
      if (t[i] < '0' || t[i] > '9') {
        return std::nullopt;
      }
      ms += (t[i] - '0') * scale;
      scale /= 10;
    }
  }
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year(*year),
                           std::chrono::month(static_cast<unsigned>(*month)),
                           std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok()) {
    return std::nullopt;
  }
  const int64_t days = sys_days(ymd).time_since_epoch().count();
  return ((days * 24 + *hour) * 60 + *minute) * 60'000 + int64_t{*second} * 1000 + ms - offset_ms;
}

std::string FormatTimeMs(int64_t epoch_ms) {
  std::string out;
  AppendTimeMs(out, epoch_ms);
  return out;
}

}  // namespace plaudit
