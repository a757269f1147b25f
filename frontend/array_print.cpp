// operator<<(ostream, Array): NumPy's str(a) (print(a)) with its default
// options: linewidth 75, precision 8 ("maxprec": each float with its
// shortest round-trip digits, at most 8 after the point), threshold 1000 and
// 3 edge items for summaries, scientific notation when a finite nonzero
// |x| >= 1e8, < 1e-4 or max/min > 1e3. It follows numpy/core/arrayprint.py
// (FloatingFormat, IntegerFormat, BoolFormat, _formatArray); 0-d arrays
// print their element as NumPy's scalar str does.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "arrvm/arrvm.hpp"
#include "vm/dtype.hpp"

namespace arrvm {
namespace {

constexpr std::size_t kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kPrecision = 8;

// Shortest round-trip text of x in the given format (float32 values are
// shortest as float32, as NumPy's dragon4 does).
template <typename T>
std::string shortest(T x, std::chars_format fmt) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, fmt);
  return std::string(buf, r.ptr);
}

// Splits "-12.345" into "-12" and "345" (no point: an empty fraction).
void split_point(const std::string& s, std::string* int_part, std::string* frac) {
  const auto dot = s.find('.');
  *int_part = dot == std::string::npos ? s : s.substr(0, dot);
  *frac = dot == std::string::npos ? "" : s.substr(dot + 1);
}

std::string trim_zeros(std::string frac) {
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return frac;
}

// Positional digits: unique, but at most kPrecision after the point.
template <typename T>
void positional(T x, std::string* int_part, std::string* frac) {
  split_point(shortest(x, std::chars_format::fixed), int_part, frac);
  if (frac->size() > static_cast<std::size_t>(kPrecision)) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", kPrecision, static_cast<double>(x));
    split_point(buf, int_part, frac);
    *frac = trim_zeros(*frac);
  }
}

// Scientific digits: mantissa int part, fraction (unique, at most
// kPrecision digits), exponent sign and digits.
template <typename T>
void scientific(T x, std::string* int_part, std::string* frac, std::string* exp) {
  std::string s = shortest(x, std::chars_format::scientific);
  auto e = s.find('e');
  std::string mant = s.substr(0, e);
  *exp = s.substr(e + 1);
  split_point(mant, int_part, frac);
  if (frac->size() > static_cast<std::size_t>(kPrecision)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", kPrecision, static_cast<double>(x));
    s = buf;
    e = s.find('e');
    *exp = s.substr(e + 1);
    split_point(s.substr(0, e), int_part, frac);
    *frac = trim_zeros(*frac);
  }
}

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}

using Formatter = std::function<std::string(std::size_t)>;  // flat index -> text

// NumPy's FloatingFormat over the displayed values.
template <typename T>
Formatter float_formatter(const std::vector<T>& data, const std::vector<std::size_t>& shown) {
  std::vector<T> finite;
  bool has_nonfinite = false, has_neginf = false;
  for (std::size_t i : shown) {
    const T x = data[i];
    if (std::isfinite(x)) {
      finite.push_back(x);
    } else {
      has_nonfinite = true;
      has_neginf |= std::isinf(x) && x < 0;
    }
  }
  bool exp_format = false;
  {
    double max_val = 0, min_val = INFINITY;
    bool any = false;
    for (T x : finite) {
      const double a = std::fabs(static_cast<double>(x));
      if (a == 0) continue;
      any = true;
      max_val = std::max(max_val, a);
      min_val = std::min(min_val, a);
    }
    exp_format = any && (max_val >= 1e8 || min_val < 1e-4 || max_val / min_val > 1e3);
  }
  std::size_t left = 0, right = 0, exp_size = 0;
  int precision = 0;
  for (T x : finite) {
    std::string ip, fp, ep;
    if (exp_format) {
      scientific(x, &ip, &fp, &ep);
      exp_size = std::max(exp_size, ep.size() - 1);  // digits after the sign
      precision = std::max(precision, static_cast<int>(fp.size()));
    } else {
      positional(x, &ip, &fp);
      right = std::max(right, fp.size());
    }
    left = std::max(left, ip.size());
  }
  if (exp_format) right = exp_size + 2 + static_cast<std::size_t>(precision);
  if (has_nonfinite) {
    const std::size_t offset = right + 1;
    const std::size_t inflen = 3 + (has_neginf ? 1 : 0);
    if (3 > offset) left = std::max(left, 3 - offset);
    if (inflen > offset) left = std::max(left, inflen - offset);
  }
  return [&data, exp_format, left, right, exp_size, precision](std::size_t i) {
    const T x = data[i];
    if (!std::isfinite(x)) {
      const std::string s = std::isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
      return pad_left(s, left + right + 1);
    }
    std::string ip, fp, ep;
    if (exp_format) {
      scientific(x, &ip, &fp, &ep);
      fp.resize(static_cast<std::size_t>(precision), '0');
      std::string digits = ep.substr(1);
      if (digits.size() < exp_size) digits = std::string(exp_size - digits.size(), '0') + digits;
      return pad_left(ip, left) + "." + fp + "e" + ep[0] + digits;
    }
    positional(x, &ip, &fp);
    return pad_left(ip, left) + "." + fp + std::string(right - fp.size(), ' ');
  };
}

template <typename T>
Formatter int_formatter(const std::vector<T>& data, const std::vector<std::size_t>& shown) {
  std::size_t width = 0;
  for (std::size_t i : shown) width = std::max(width, std::to_string(data[i]).size());
  return [&data, width](std::size_t i) { return pad_left(std::to_string(data[i]), width); };
}

// A 0-d array's element as NumPy's scalar str (Python's float repr).
template <typename T>
std::string scalar_text(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    const double a = std::fabs(static_cast<double>(x));
    if (a != 0 && (a >= 1e16 || a < 1e-4)) {
      std::string s = shortest(x, std::chars_format::scientific);  // "1e+20", "1.5e-05"
      return s;
    }
    std::string s = shortest(x, std::chars_format::fixed);
    if (s.find('.') == std::string::npos) s += ".0";
    return s;
  } else {
    return std::to_string(x);
  }
}

// NumPy's _formatArray: nested brackets, rows wrapped at kLineWidth, "..."
// in summarized axes.
class Printer {
 public:
  Printer(const Shape& shape, bool summarize, Formatter fmt)
      : shape_(shape), summarize_(summarize), fmt_(std::move(fmt)) {
    strides_.assign(shape.size(), 1);
    for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
      strides_[static_cast<std::size_t>(d)] =
          strides_[static_cast<std::size_t>(d) + 1] * shape[static_cast<std::size_t>(d) + 1];
    }
  }

  // The flat indices shown, in order.
  void shown(std::size_t axis, int64_t flat, std::vector<std::size_t>* out) const {
    if (axis == shape_.size()) {
      out->push_back(static_cast<std::size_t>(flat));
      return;
    }
    for (int64_t i : items(axis)) {
      if (i >= 0) shown(axis + 1, flat + i * strides_[axis], out);  // -1: the summary's "..."
    }
  }

  std::string print() const { return recurse(0, 0, " ", kLineWidth); }

 private:
  // Indices along `axis`, -1 marking the summary.
  std::vector<int64_t> items(std::size_t axis) const {
    const int64_t n = shape_[axis];
    std::vector<int64_t> v;
    if (summarize_ && 2 * kEdgeItems < n) {
      for (int64_t i = 0; i < kEdgeItems; ++i) v.push_back(i);
      v.push_back(-1);
      for (int64_t i = n - kEdgeItems; i < n; ++i) v.push_back(i);
    } else {
      for (int64_t i = 0; i < n; ++i) v.push_back(i);
    }
    return v;
  }

  static void extend_line(std::string* s, std::string* line, const std::string& word, std::size_t width,
                          const std::string& prefix) {
    bool wrap = line->size() + word.size() > width;
    if (line->size() <= prefix.size()) wrap = false;  // wrapping would not help
    if (wrap) {
      std::string l = *line;
      while (!l.empty() && l.back() == ' ') l.pop_back();
      *s += l + "\n";
      *line = prefix;
    }
    *line += word;
  }

  std::string recurse(std::size_t axis, int64_t flat, const std::string& hang, std::size_t width) const {
    const std::size_t left = shape_.size() - axis;
    const std::string next_hang = hang + " ";
    const std::size_t next_width = width - 1;
    const std::vector<int64_t> idx = items(axis);
    std::string s;
    if (left == 1) {
      const std::size_t elem_width = width - 1;  // max(len(""), len("]"))
      std::string line = hang;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        const std::string word =
            idx[k] < 0 ? "..." : fmt_(static_cast<std::size_t>(flat + idx[k] * strides_[axis]));
        extend_line(&s, &line, word, elem_width, hang);
        if (k + 1 < idx.size()) line += " ";
      }
      s += line;
    } else {
      const std::string line_sep = std::string(left - 1, '\n');
      for (std::size_t k = 0; k < idx.size(); ++k) {
        s += hang;
        s += idx[k] < 0 ? "..." : recurse(axis + 1, flat + idx[k] * strides_[axis], next_hang, next_width);
        if (k + 1 < idx.size()) s += line_sep;
      }
    }
    return "[" + s.substr(hang.size()) + "]";
  }

  Shape shape_;
  std::vector<int64_t> strides_;
  bool summarize_;
  Formatter fmt_;
};

template <typename T>
std::string format_elements(const std::vector<T>& data, const Shape& shape, bool is_bool) {
  if (shape.empty()) {
    if (is_bool) return data.at(0) ? "True" : "False";
    return scalar_text(data.at(0));
  }
  if (data.empty()) return "[]";
  const bool summarize = static_cast<int64_t>(data.size()) > kThreshold;
  Printer probe(shape, summarize, nullptr);
  std::vector<std::size_t> shown;
  probe.shown(0, 0, &shown);
  Formatter fmt;
  if (is_bool) {
    fmt = [&data](std::size_t i) { return std::string(data[i] ? " True" : "False"); };
  } else if constexpr (std::is_floating_point_v<T>) {
    fmt = float_formatter(data, shown);
  } else {
    fmt = int_formatter(data, shown);
  }
  return Printer(shape, summarize, fmt).print();
}

// Complex elements as NumPy prints them: the real parts in one float
// format, then the imaginary parts' sign and magnitudes in another, and
// "j" (`[1.+2.j 3.-4.j]`); a 0-d one as Python's complex, `(1+2j)`.
template <typename P>
std::string format_complex(const std::vector<std::complex<P>>& data, const Shape& shape) {
  std::vector<P> re(data.size()), im(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    re[i] = data[i].real();
    im[i] = std::fabs(data[i].imag());
  }
  if (shape.empty()) {
    const bool neg = std::signbit(data.at(0).imag()) && !std::isnan(data.at(0).imag());
    return "(" + scalar_text(re.at(0)) + (neg ? "-" : "+") + scalar_text(im.at(0)) + "j)";
  }
  if (data.empty()) return "[]";
  const bool summarize = static_cast<int64_t>(data.size()) > kThreshold;
  Printer probe(shape, summarize, nullptr);
  std::vector<std::size_t> shown;
  probe.shown(0, 0, &shown);
  const Formatter fr = float_formatter(re, shown), fi = float_formatter(im, shown);
  Formatter fmt = [&](std::size_t i) {
    std::string m = fi(i);
    m.erase(0, m.find_first_not_of(' '));
    const bool neg = std::signbit(data[i].imag()) && !std::isnan(data[i].imag());
    return fr(i) + (neg ? "-" : "+") + m + "j";
  };
  return Printer(shape, summarize, fmt).print();
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Array& a) {
  if (!a.valid()) return os << "Array(empty handle)";
  std::string text;
  switch (a.dtype()) {
    case DType::Bool:
      text = format_elements(a.astype(DType::UInt8).to_vector<uint8_t>(), a.shape(), true);
      break;
    case DType::Int8:
      text = format_elements(a.to_vector<int8_t>(), a.shape(), false);
      break;
    case DType::Int16:
      text = format_elements(a.to_vector<int16_t>(), a.shape(), false);
      break;
    case DType::Int32:
      text = format_elements(a.to_vector<int32_t>(), a.shape(), false);
      break;
    case DType::Int64:
      text = format_elements(a.to_vector<int64_t>(), a.shape(), false);
      break;
    case DType::UInt8:
      text = format_elements(a.to_vector<uint8_t>(), a.shape(), false);
      break;
    case DType::UInt16:
      text = format_elements(a.to_vector<uint16_t>(), a.shape(), false);
      break;
    case DType::UInt32:
      text = format_elements(a.to_vector<uint32_t>(), a.shape(), false);
      break;
    case DType::UInt64:
      text = format_elements(a.to_vector<uint64_t>(), a.shape(), false);
      break;
    case DType::Float32:
      text = format_elements(a.to_vector<float>(), a.shape(), false);
      break;
    case DType::Float64:
      text = format_elements(a.to_vector<double>(), a.shape(), false);
      break;
    case DType::Complex64:
      text = format_complex(a.to_vector<std::complex<float>>(), a.shape());
      break;
    case DType::Complex128:
      text = format_complex(a.to_vector<std::complex<double>>(), a.shape());
      break;
  }
  return os << text;
}

}  // namespace arrvm
