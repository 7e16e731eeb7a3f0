#include "kprof/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>
#include <vector>

namespace kprof {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// ln(1 + e^u) without overflow.
double softplus(double u) { return u > 0 ? u + std::log1p(std::exp(-u)) : std::log1p(std::exp(u)); }

// ln(e^w - 1) without overflow.
double log_expm1(double w) {
  return w > 30 ? w + std::log1p(-std::exp(-w)) : std::log(std::expm1(w));
}

// The terms of Stirling's series after (z - 1/2) ln z - z + ln(2 pi) / 2.
double stirling_correction(double z) {
  const double r = 1 / (z * z);
  return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / z;
}

// ln B(a, 1/2) = ln Gamma(a) + ln Gamma(1/2) - ln Gamma(a + 1/2).
double log_beta_half(double a) {
  const double ln_gamma_half = 0.5 * std::log(std::numbers::pi);
  if (a < 10) return std::lgamma(a) + ln_gamma_half - std::lgamma(a + 0.5);
  // For large a, lgamma(a) - lgamma(a + 1/2) cancels most of its digits; Stirling's series
  // gives the difference from terms of order one.
  const double ln_ratio = a * std::log1p(0.5 / a) - 0.5 + 0.5 * std::log(a) +
                          stirling_correction(a + 0.5) - stirling_correction(a);
  return ln_gamma_half - ln_ratio;
}

// The continued fraction of the regularized incomplete beta function I_x(a, b) (modified
// Lentz); it converges fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300;
  constexpr int kMaxTerms = 100000;
  const auto guard = [](double v) { return std::abs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / guard(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 / guard(1 + even * d);
    c = guard(1 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 / guard(1 + odd * d);
    c = guard(1 + odd / c);
    h *= d * c;
    if (std::abs(d * c - 1) < 1e-15) break;
  }
  return h;
}

// Logarithms of Student's t probabilities at t = e^s, each computed without cancellation.
struct TLogs {
  double tail;       // ln P(T > t)
  double central;    // ln P(|T| < t)
  double density_t;  // ln(f(t) * t), f the density
};

TLogs t_logs(double s, double df, double ln_beta) {
  const double a = 0.5 * df;
  const double u = 2 * s - std::log(df);  // ln(t^2 / df)
  const double ln_x = -softplus(u);       // x = df / (df + t^2)
  const double ln_y = -softplus(-u);      // y = 1 - x = t^2 / (df + t^2)
  const double ln_front = a * ln_x + 0.5 * ln_y - ln_beta;
  const double density_t = s - 0.5 * std::log(df) - ln_beta + (a + 0.5) * ln_x;
  // P(T > t) = I_x(df/2, 1/2) / 2 and P(|T| < t) = I_y(1/2, df/2): evaluate the one whose
  // continued fraction converges fast, and get the other from it. The test is
  // x < (a + 1) / (a + 5/2), written on y, which keeps its digits when x is close to 1.
  if (std::exp(ln_y) > 1.5 / (a + 2.5)) {
    const double tail = ln_front + std::log(beta_continued_fraction(std::exp(ln_x), a, 0.5) / a) -
                        std::numbers::ln2;
    return {tail, std::log1p(-std::exp(tail + std::numbers::ln2)), density_t};
  }
  const double central = ln_front + std::log(2 * beta_continued_fraction(std::exp(ln_y), 0.5, a));
  return {std::log1p(-std::exp(central)) - std::numbers::ln2, central, density_t};
}

// Next point of a safeguarded Newton iteration: the Newton point when it lies inside the
// bracket, else bisection, or an expanding step while one side of the bracket is open.
double safeguarded_step(double newton, double lo, double hi) {
  if (newton > lo && newton < hi) return newton;
  if (std::isfinite(lo) && std::isfinite(hi)) return 0.5 * (lo + hi);
  return std::isfinite(lo) ? lo + 1 + std::abs(lo) : hi - 1 - std::abs(hi);
}

// The t > 0 with P(T > t) = q (0 < q < 1/2). Newton's method on s = ln t, on the log of the
// central probability when the target is near the centre and of the tail probability
// otherwise: both are close to linear in s there, and neither loses digits to cancellation.
double upper_t_quantile(double q, double df) {
  const double ln_beta = log_beta_half(0.5 * df);
  const bool central_target = q > 0.25;
  const double c = 1 - 2 * q;  // exact for q > 1/4
  const auto residual = [&](double s) -> std::pair<double, double> {
    const TLogs l = t_logs(s, df, ln_beta);
    if (central_target) return {l.central - std::log(c), 2 * std::exp(l.density_t - l.central)};
    return {std::log(q) - l.tail, std::exp(l.density_t - l.tail)};
  };
  // Central target: the linear approximation c = 2 f(0) t. Tail target: an approximation that
  // tends to the Cauchy-like tail for small df and to sqrt(-2 ln q) for large df.
  double s = central_target ? std::log(0.5 * c) + 0.5 * std::log(df) + ln_beta
                            : 0.5 * (std::log(df) + log_expm1(-2 * std::log(q) / df));
  double lo = -kInf;
  double hi = kInf;
  for (int i = 0; i < 200; ++i) {
    const auto [f, slope] = residual(s);
    if (f == 0) break;
    (f > 0 ? hi : lo) = s;
    const double next = safeguarded_step(s - f / slope, lo, hi);
    const bool converged = std::abs(next - s) <= 1e-14 * std::max(1.0, std::abs(s));
    s = next;
    if (converged) break;
  }
  return std::exp(s);
}

Interval interval_of_mean(double m, double s, std::size_t n) {
  if (n < 2) return {kNaN, kNaN};
  const double half =
      student_t_quantile(0.975, static_cast<double>(n - 1)) * s / std::sqrt(static_cast<double>(n));
  return {m - half, m + half};
}

}  // namespace

double mean(std::span<const double> v) {
  if (v.empty()) return kNaN;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double sample_stddev(std::span<const double> v) {
  if (v.size() < 2) return kNaN;
  const double m = mean(v);
  double squares = 0;
  for (double x : v) squares += (x - m) * (x - m);
  return std::sqrt(squares / static_cast<double>(v.size() - 1));
}

double median(std::span<const double> v) {
  if (v.empty()) return kNaN;
  std::vector<double> sorted(v.begin(), v.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

double geomean(std::span<const double> v) {
  if (v.empty()) return kNaN;
  double log_sum = 0;
  for (double x : v) {
    if (!(x > 0)) return kNaN;
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(v.size()));
}

double student_t_quantile(double p, double df) {
  if (std::isnan(p) || !(df > 0) || !std::isfinite(df) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  if (p == 0.5) return 0;
  return p < 0.5 ? -upper_t_quantile(p, df) : upper_t_quantile(1 - p, df);
}

Interval ci95_of_mean(std::span<const double> v) {
  return interval_of_mean(mean(v), sample_stddev(v), v.size());
}

Summary summarize(std::span<const double> values) {
  std::vector<double> v;
  for (double x : values)
    if (!std::isnan(x)) v.push_back(x);
  Summary s;
  s.n = v.size();
  s.mean = mean(v);
  s.stddev = sample_stddev(v);
  s.min = v.empty() ? kNaN : *std::min_element(v.begin(), v.end());
  s.max = v.empty() ? kNaN : *std::max_element(v.begin(), v.end());
  s.median = median(v);
  s.ci95 = interval_of_mean(s.mean, s.stddev, s.n);
  s.rel_stddev_pct = s.n < 2 || s.mean == 0 ? kNaN : 100 * s.stddev / std::abs(s.mean);
  if (!std::isnan(s.rel_stddev_pct)) s.stable = s.rel_stddev_pct < kStableRsdPct;
  return s;
}

}  // namespace kprof
