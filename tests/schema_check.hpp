// A small JSON Schema checker for the tests: the subset the schemas in docs/schemas/ use
// (type, required, properties, items, enum, minimum, exclusiveMinimum, pattern, and $ref to
// another file of docs/schemas/). Returns the first violation as "path: what", or an empty
// string.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

namespace halocline::test {

inline bool has_type(const nlohmann::json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "null") return v.is_null();
  return false;
}

// docs/schemas/FILE (a schema's "$ref" names a file beside it).
inline nlohmann::json load_schema_file(const std::string& file) {
  std::ifstream in(std::string(HALOCLINE_SOURCE_DIR) + "/docs/schemas/" + file);
  return nlohmann::json::parse(in);
}

inline std::string schema_violation(const nlohmann::json& v, const nlohmann::json& schema,
                                    const std::string& path = "$") {
  if (schema.contains("$ref")) return schema_violation(v, load_schema_file(schema["$ref"].get<std::string>()), path);
  if (schema.contains("type")) {
    bool ok = false;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) ok = ok || has_type(v, t.get<std::string>());
    } else {
      ok = has_type(v, schema["type"].get<std::string>());
    }
    if (!ok) return path + ": not of type " + schema["type"].dump() + " (" + v.dump().substr(0, 60) + ")";
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == v;
    if (!found) return path + ": " + v.dump() + " not in " + schema["enum"].dump();
  }
  if (v.is_string() && schema.contains("pattern") &&
      !std::regex_search(v.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
    return path + ": " + v.dump() + " does not match " + schema["pattern"].dump();
  if (v.is_number() && schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>())
    return path + ": " + v.dump() + " below the minimum";
  if (v.is_number() && schema.contains("exclusiveMinimum") &&
      v.get<double>() <= schema["exclusiveMinimum"].get<double>())
    return path + ": " + v.dump() + " not above " + schema["exclusiveMinimum"].dump();
  if (v.is_object()) {
    if (schema.contains("required"))
      for (const auto& key : schema["required"])
        if (!v.contains(key.get<std::string>())) return path + ": missing '" + key.get<std::string>() + "'";
    if (schema.contains("properties"))
      for (const auto& [key, sub] : schema["properties"].items())
        if (v.contains(key)) {
          const std::string why = schema_violation(v[key], sub, path + "." + key);
          if (!why.empty()) return why;
        }
  }
  if (v.is_array() && schema.contains("items"))
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string why = schema_violation(v[i], schema["items"], path + "[" + std::to_string(i) + "]");
      if (!why.empty()) return why;
    }
  return "";
}

// docs/schemas/NAME.schema.json
inline nlohmann::json load_schema(const std::string& name) { return load_schema_file(name + ".schema.json"); }

}  // namespace halocline::test
