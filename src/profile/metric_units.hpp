#pragma once
// ncu's printed values as numbers in the units the tables use. ncu scales units to the value
// ("Gbyte/second", "Tbyte/second", "usecond", "msecond") and groups thousands with commas
// ("1,234.56"); the profiler runs it with LC_ALL=C so the decimal point is always '.'.

#include <optional>
#include <string_view>

namespace warpfold::profile {

// "1,234.56" → 1234.56; nullopt for "n/a", "" or anything that is not a whole number.
std::optional<double> parse_metric_number(std::string_view text);

// A throughput in GB/s (1e9 bytes per second) from any of ncu's byte-rate units
// ("byte/second", "Kbyte/second" ... "Tbyte/second", also written "B/s", "GB/s"); nullopt for
// another unit.
std::optional<double> to_gigabytes_per_second(double value, std::string_view unit);

// A duration in milliseconds from "nsecond", "usecond", "msecond", "second" (or "ns", "us", "ms",
// "s"); nullopt for another unit.
std::optional<double> to_milliseconds(double value, std::string_view unit);

}  // namespace warpfold::profile
