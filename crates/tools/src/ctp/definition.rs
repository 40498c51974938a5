//! The CTP tool definition as read from `catalogue/<category>/<id>.json`.
//!
//! Field names and shapes mirror `tool-definition.schema.json`; unknown fields are rejected
//! because the schema sets `additionalProperties: false`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolDefinition {
    pub id: String,
    pub name: String,
    pub description: String,
    pub category: String,
    pub tags: Vec<String>,
    pub method: String,
    pub parameters: Vec<Parameter>,
    pub output_description: String,
    pub example: Example,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_tools: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_instructions: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_auth: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_message: Option<String>,
}

/// Version reported when a definition does not carry one.
pub const DEFAULT_TOOL_VERSION: &str = "1.0.0";

impl ToolDefinition {
    pub fn version(&self) -> &str {
        self.version.as_deref().unwrap_or(DEFAULT_TOOL_VERSION)
    }

    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// The first sentence of the description, used where a one-line summary is needed.
    pub fn summary(&self) -> &str {
        let d = self.description.trim();
        match d.find(". ") {
            Some(i) => &d[..i],
            None => d.strip_suffix('.').unwrap_or(d),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    Text,
    Textarea,
    Number,
    Boolean,
    Select,
    Json,
    File,
    Color,
    Date,
    Datetime,
    Url,
    Email,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::Text => "text",
            ParamType::Textarea => "textarea",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
            ParamType::Select => "select",
            ParamType::Json => "json",
            ParamType::File => "file",
            ParamType::Color => "color",
            ParamType::Date => "date",
            ParamType::Datetime => "datetime",
            ParamType::Url => "url",
            ParamType::Email => "email",
        }
    }

    /// Types whose value is carried as a JSON string.
    pub fn is_stringly(self) -> bool {
        !matches!(
            self,
            ParamType::Number | ParamType::Boolean | ParamType::Json
        )
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Parameter {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ParamType,
    pub label: String,
    pub description: String,
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<SelectOption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_hint: Option<String>,
}

impl Parameter {
    /// Whether a `number` parameter only accepts whole numbers (its step, min and max are integral).
    pub fn is_integer(&self) -> bool {
        if self.kind != ParamType::Number {
            return false;
        }
        let v = self.validation.as_ref();
        let integral = |x: Option<f64>| x.is_none_or(|x| x.fract() == 0.0);
        v.and_then(|v| v.step).is_some_and(|s| s.fract() == 0.0)
            && integral(v.and_then(|v| v.min))
            && integral(v.and_then(|v| v.max))
    }

    pub fn option_values(&self) -> impl Iterator<Item = &str> {
        self.options.iter().map(|o| o.value.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectOption {
    pub value: String,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Validation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub input: serde_json::Map<String, Value>,
    pub output: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}
