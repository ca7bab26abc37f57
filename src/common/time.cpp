#include "common/time.hpp"

#include <chrono>

namespace plaudit {

int64_t NowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// std::chrono's calendar, not gmtime_r + snprintf: gmtime_r takes glibc's timezone lock and
// snprintf parses its format on every call, and an article list formats three times per
// article (both showed in the list page's profile).
std::string FormatTimeMs(int64_t epoch_ms) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds{epoch_ms}};
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<milliseconds> hms{t - day};
  std::string out = "0000-00-00T00:00:00.000Z";
  auto put = [&out](size_t pos, int64_t value, int width) {
    for (int i = width - 1; i >= 0; --i) {
      out[pos + static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  put(0, static_cast<int>(ymd.year()), 4);
  put(5, static_cast<unsigned>(ymd.month()), 2);
  put(8, static_cast<unsigned>(ymd.day()), 2);
  put(11, hms.hours().count(), 2);
  put(14, hms.minutes().count(), 2);
  put(17, hms.seconds().count(), 2);
  put(20, hms.subseconds().count(), 3);
  return out;
}

}  // namespace plaudit
