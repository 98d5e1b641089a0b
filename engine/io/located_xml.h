#pragma once
// A located reader of XML elements on tinyxml2, for the robot-model readers (urdf_reader.h):
// typed access to an element's attributes and children where every failing check throws
// csim::InputError at `FILE:LINE:COL` of the element or attribute at fault, and warnings
// are collected in the same form. tinyxml2 records lines only; Locator finds the column in
// the text of that line.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>
#include <tinyxml2.h>

#include "engine/common/input_error.h"

namespace csim::io::xml {

using tinyxml2::XMLAttribute;
using tinyxml2::XMLElement;

/// "1.5", "-0.25": a number in a message.
inline std::string Num(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Where elements and attributes are in the text. tinyxml2 records their lines only; the
/// column is looked up in the line.
class Locator {
 public:
  Locator(const std::string& text, std::string file) : file_(std::move(file)) {
    std::size_t start = 0;
    while (true) {
      const std::size_t end = text.find('\n', start);
      lines_.push_back(text.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }

  const std::string& file() const { return file_; }

  /// At the `<` of the element's start tag.
  SourceLocation Of(const XMLElement* element) const {
    return StartTag(element->GetLineNum(), element->Name());
  }

  /// At the `<` of the first start tag `<name` on line `line`.
  SourceLocation StartTag(int line, const std::string& name) const {
    const std::string tag = "<" + name;
    return {file_, line, Column(line, [&](const std::string& text, std::size_t at) {
              if (text.compare(at, tag.size(), tag) != 0) return false;
              const std::size_t after = at + tag.size();
              return after == text.size() || IsSpace(text[after]) || text[after] == '/' ||
                     text[after] == '>';
            })};
  }

  /// At the first letter of the attribute's name.
  SourceLocation Of(const XMLAttribute* attribute) const {
    const int line = attribute->GetLineNum();
    const std::string name = attribute->Name();
    return {file_, line, Column(line, [&](const std::string& text, std::size_t at) {
              if (at == 0 || !IsSpace(text[at - 1])) return false;
              if (text.compare(at, name.size(), name) != 0) return false;
              std::size_t after = at + name.size();
              while (after < text.size() && IsSpace(text[after])) ++after;
              return after < text.size() && text[after] == '=';
            })};
  }

  /// Line `line`, column 1: where tinyxml2 gives no more than the line.
  SourceLocation AtLine(int line) const { return {file_, line < 1 ? 1 : line, 1}; }

 private:
  /// 1-based column of the first position of line `line` where `matches` holds; 1 if none.
  template <typename Match>
  int Column(int line, Match matches) const {
    if (line < 1 || line > static_cast<int>(lines_.size())) return 1;
    const std::string& text = lines_[line - 1];
    for (std::size_t at = 0; at < text.size(); ++at) {
      if (matches(text, at)) return static_cast<int>(at) + 1;
    }
    return 1;
  }

  std::string file_;
  std::vector<std::string> lines_;
};

/// What every element reader shares: the locator and the warnings.
struct Context {
  Locator locator;
  std::vector<std::string>* warnings;

  void Warn(const SourceLocation& where, const std::string& what) const {
    if (warnings) warnings->push_back(FormatLocated(where, what));
  }
};

/// One XML element with located, typed access to its attributes and children. Every
/// failing check throws InputError at the element or attribute at fault.
class Element {
 public:
  Element(const XMLElement* element, const Context* context)
      : element_(element), context_(context) {}

  std::string Tag() const { return element_->Name(); }
  int Line() const { return element_->GetLineNum(); }
  SourceLocation Where() const { return context_->locator.Of(element_); }
  SourceLocation Where(const XMLAttribute* attribute) const {
    return context_->locator.Of(attribute);
  }
  [[noreturn]] void Fail(const std::string& what) const { throw InputError(Where(), what); }
  /// At `attribute`, or at this element if it is null.
  [[noreturn]] void Fail(const XMLAttribute* attribute, const std::string& what) const {
    throw InputError(attribute ? Where(attribute) : Where(), what);
  }
  void Warn(const std::string& what) const { context_->Warn(Where(), what); }

  /// One warning for all the attributes not in `allowed` (besides those `also_allowed`
  /// accepts), at the first of them.
  template <typename Predicate>
  void CheckAttributes(std::initializer_list<const char*> allowed,
                       Predicate also_allowed) const {
    std::vector<const XMLAttribute*> unknown;
    for (const XMLAttribute* a = element_->FirstAttribute(); a; a = a->Next()) {
      bool known = also_allowed(a->Name());
      for (const char* name : allowed) known = known || std::strcmp(a->Name(), name) == 0;
      if (!known) unknown.push_back(a);
    }
    if (unknown.empty()) return;
    std::string names;
    for (const XMLAttribute* a : unknown) {
      names += (names.empty() ? "'" : ", '") + std::string(a->Name()) + "'";
    }
    std::string hint;
    for (const XMLAttribute* a : unknown) {
      const std::string name = a->Name();
      if (Tag() == "inertia" && (name == "iyx" || name == "izx" || name == "izy")) {
        hint = " (the tensor is symmetric: ixy, ixz and iyz give its off-diagonal terms)";
      }
    }
    context_->Warn(Where(unknown.front()),
                   std::string(unknown.size() == 1 ? "unknown attribute " : "unknown attributes ") +
                       names + " of <" + Tag() + ">: ignored" + hint);
  }
  void CheckAttributes(std::initializer_list<const char*> allowed) const {
    CheckAttributes(allowed, [](const char*) { return false; });
  }

  /// Warns at each child element whose tag is neither in `once` nor in `many`, and at each
  /// repetition of a tag in `once` (urdfdom reads the first and ignores the others).
  void CheckChildren(std::initializer_list<const char*> once,
                     std::initializer_list<const char*> many) const {
    std::map<std::string, int> seen;
    for (const XMLElement* c = element_->FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string tag = c->Name();
      const Element child(c, context_);
      bool single = false, multiple = false;
      for (const char* name : once) single = single || tag == name;
      for (const char* name : many) multiple = multiple || tag == name;
      if (tag == "gazebo") {
        child.Warn("<gazebo> ignored: Gazebo's simulation settings do not apply to csim");
      } else if (!single && !multiple) {
        child.Warn("unknown element <" + tag + "> in <" + Tag() + ">: ignored");
      } else if (single && ++seen[tag] > 1) {
        child.Warn("second <" + tag + "> in <" + Tag() +
                   ">: ignored, only the first one counts (as in urdfdom)");
      }
    }
  }

  /// The first child named `tag`, if any.
  std::optional<Element> Child(const char* tag) const {
    const XMLElement* c = element_->FirstChildElement(tag);
    if (!c) return std::nullopt;
    return Element(c, context_);
  }
  /// The first child named `tag`; fails at this element without one.
  Element RequiredChild(const char* tag, const std::string& owner) const {
    const auto child = Child(tag);
    if (!child) Fail(owner + " has no <" + tag + ">");
    return *child;
  }
  /// Every child named `tag`, in file order.
  std::vector<Element> Children(const char* tag) const {
    std::vector<Element> out;
    for (const XMLElement* c = element_->FirstChildElement(tag); c;
         c = c->NextSiblingElement(tag)) {
      out.emplace_back(c, context_);
    }
    return out;
  }
  /// Every child element, in file order.
  std::vector<Element> AllChildren() const {
    std::vector<Element> out;
    for (const XMLElement* c = element_->FirstChildElement(); c; c = c->NextSiblingElement()) {
      out.emplace_back(c, context_);
    }
    return out;
  }

  const XMLAttribute* Attribute(const char* name) const {
    return element_->FindAttribute(name);
  }
  bool Has(const char* name) const { return Attribute(name) != nullptr; }

  std::optional<std::string> String(const char* name) const {
    const XMLAttribute* a = Attribute(name);
    if (!a) return std::nullopt;
    return std::string(a->Value());
  }
  std::string RequiredString(const char* name) const {
    const XMLAttribute* a = Attribute(name);
    if (!a) Fail("<" + Tag() + "> has no attribute '" + name + "'");
    return a->Value();
  }

  /// The `count` whitespace-separated finite numbers of attribute `name` (which must exist).
  std::vector<double> Numbers(const char* name, int count) const {
    const XMLAttribute* a = Attribute(name);
    if (!a) Fail("<" + Tag() + "> has no attribute '" + name + "'");
    std::vector<double> values;
    const std::string text = a->Value();
    std::size_t at = 0;
    while (true) {
      while (at < text.size() && IsSpace(text[at])) ++at;
      if (at == text.size()) break;
      std::size_t end = at;
      while (end < text.size() && !IsSpace(text[end])) ++end;
      values.push_back(ParseNumber(a, text.substr(at, end - at)));
      at = end;
    }
    if (static_cast<int>(values.size()) != count) {
      Fail(a, "attribute '" + std::string(name) + "' of <" + Tag() + "> needs " +
                  std::to_string(count) + (count == 1 ? " number" : " numbers") + ", got '" +
                  text + "'");
    }
    return values;
  }
  double Number(const char* name) const { return Numbers(name, 1)[0]; }
  double NumberOr(const char* name, double fallback) const {
    return Has(name) ? Number(name) : fallback;
  }
  std::optional<double> OptionalNumber(const char* name) const {
    if (!Has(name)) return std::nullopt;
    return Number(name);
  }
  Eigen::Vector3d Vector3Or(const char* name, const Eigen::Vector3d& fallback) const {
    if (!Has(name)) return fallback;
    const std::vector<double> v = Numbers(name, 3);
    return {v[0], v[1], v[2]};
  }
  /// A number >= 0 (a size, radius or length).
  double NonNegative(const char* name) const {
    const double value = Number(name);
    if (value < 0) {
      Fail(Attribute(name), "attribute '" + std::string(name) + "' of <" + Tag() +
                                "> must not be negative, got " + Num(value));
    }
    return value;
  }

  /// The element's text, without leading and trailing white space.
  std::string Text() const {
    const char* raw = element_->GetText();
    std::string text = raw ? raw : "";
    std::size_t begin = 0, end = text.size();
    while (begin < end && IsSpace(text[begin])) ++begin;
    while (end > begin && IsSpace(text[end - 1])) --end;
    return text.substr(begin, end - begin);
  }
  double TextNumber() const {
    const std::string text = Text();
    double value = 0.0;
    if (!ParseToken(text, &value)) {
      Fail("<" + Tag() + "> must hold a finite number, got '" + text + "'");
    }
    return value;
  }

 private:
  /// A finite number in the C locale, as urdfdom reads it (a leading '+' allowed).
  static bool ParseToken(const std::string& token, double* value) {
    const char* begin = token.data();
    const char* end = begin + token.size();
    if (begin != end && *begin == '+') {
      ++begin;
      if (begin != end && *begin == '-') return false;
    }
    const auto [ptr, ec] = std::from_chars(begin, end, *value);
    return ec == std::errc() && ptr == end && std::isfinite(*value);
  }
  double ParseNumber(const XMLAttribute* attribute, const std::string& token) const {
    double value = 0.0;
    if (!ParseToken(token, &value)) {
      Fail(attribute, "attribute '" + std::string(attribute->Name()) + "' of <" + Tag() +
                          ">: '" + token + "' is not a finite number");
    }
    return value;
  }

  const XMLElement* element_;
  const Context* context_;
};

}  // namespace csim::io::xml
