#include "engine/io/yaml_text_checks.h"

#include <cstdio>
#include <vector>

#include <yaml-cpp/depthguard.h>

namespace csim::io {
namespace {

/// True if the quoted scalar that starts at text[start] (a ' or ") is closed before the
/// end of the text. Double quotes escape with a backslash, single quotes by doubling.
bool QuoteIsClosed(const std::string& text, size_t start) {
  const char quote = text[start];
  for (size_t i = start + 1; i < text.size(); ++i) {
    if (quote == '"' && text[i] == '\\') {
      ++i;  // the escaped character cannot close the string
    } else if (text[i] == quote) {
      if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
        ++i;  // '' is an escaped single quote
      } else {
        return true;
      }
    }
  }
  return false;
}

std::optional<TextProblem> CheckNode(const YAML::Node& node, const std::string& text) {
  if (node.IsScalar()) {
    // Quoted scalars carry the non-specific tag "!" (plain ones "?"); block scalars (| >)
    // do too, but their mark is not on a quote character.
    const YAML::Mark mark = node.Mark();
    if (node.Tag() != "!" || mark.is_null() || mark.pos < 0) return std::nullopt;
    const size_t pos = static_cast<size_t>(mark.pos);
    if (pos >= text.size() || (text[pos] != '"' && text[pos] != '\'')) return std::nullopt;
    if (!QuoteIsClosed(text, pos)) {
      return TextProblem{mark.line, mark.column,
                         std::string("this ") + (text[pos] == '"' ? "double" : "single") +
                             "-quoted string is never closed (it would swallow the rest "
                             "of the text)"};
    }
    return std::nullopt;
  }
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (auto problem = CheckNode(item, text)) return problem;
    }
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (auto problem = CheckNode(it->first, text)) return problem;
      if (auto problem = CheckNode(it->second, text)) return problem;
    }
  }
  return std::nullopt;
}

/// Depth-first walk for FindAliasProblem; `path` holds the nodes from the root to `node`.
std::optional<TextProblem> CheckAliases(const YAML::Node& node, std::vector<YAML::Node>* path,
                                        long* visited) {
  if (++*visited > kMaxExpandedNodes) {
    const YAML::Mark mark = node.Mark();
    return TextProblem{mark.line, mark.column,
                       "aliases expand the document to more than " +
                           std::to_string(kMaxExpandedNodes) + " nodes"};
  }
  if (!node.IsSequence() && !node.IsMap()) return std::nullopt;
  for (const YAML::Node& ancestor : *path) {
    if (ancestor.is(node)) {
      const YAML::Mark mark = node.Mark();
      return TextProblem{mark.line, mark.column, "an alias refers to a node that contains it"};
    }
  }
  path->push_back(node);
  std::optional<TextProblem> problem;
  for (auto it = node.begin(); it != node.end() && !problem; ++it) {
    if (node.IsSequence()) {
      problem = CheckAliases(*it, path, visited);
    } else {
      problem = CheckAliases(it->first, path, visited);
      if (!problem) problem = CheckAliases(it->second, path, visited);
    }
  }
  path->pop_back();
  return problem;
}

}  // namespace

std::optional<TextProblem> FindAliasProblem(const YAML::Node& root) {
  std::vector<YAML::Node> path;
  long visited = 0;
  return CheckAliases(root, &path, &visited);
}

std::optional<TextProblem> FindControlCharacter(const std::string& text) {
  int line = 0, column = 0;
  for (const char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", c);
      return TextProblem{line, column,
                         std::string("control character ") + code +
                             (c == 0 ? " (a NUL byte: is this a binary file?)" : "") +
                             " is not allowed in YAML text"};
    }
    if (c == '\n') {
      ++line;
      column = 0;
    } else {
      ++column;
    }
  }
  return std::nullopt;
}

std::optional<TextProblem> FindUnclosedQuote(const YAML::Node& root, const std::string& text) {
  return CheckNode(root, text);
}

std::optional<TextProblem> ParseOneDocument(const std::string& text, YAML::Node* out) {
  if (auto problem = FindControlCharacter(text)) return problem;
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    return TextProblem{e.mark.line, e.mark.column, "nested deeper than the YAML reader allows"};
  } catch (const YAML::ParserException& e) {
    return TextProblem{e.mark.line, e.mark.column, e.msg};
  } catch (const YAML::Exception& e) {
    return TextProblem{-1, -1, e.what()};
  }
  if (documents.size() > 1) {
    const YAML::Mark mark = documents[1].Mark();
    return TextProblem{mark.line, mark.column,
                       "more than one document: a second one starts here (after '---')"};
  }
  const YAML::Node document = documents.empty() ? YAML::Node() : documents[0];
  if (auto problem = FindAliasProblem(document)) return problem;
  if (auto problem = FindUnclosedQuote(document, text)) return problem;
  *out = document;
  return std::nullopt;
}

}  // namespace csim::io
