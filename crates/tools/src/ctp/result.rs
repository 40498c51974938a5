//! The CTP ToolResult envelope and its error codes (`tool-result.schema.json`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The standard CTP error codes. Serialised in SCREAMING_SNAKE_CASE as the schema lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidInput,
    MissingRequired,
    TypeError,
    ConstraintViolation,
    ExecutionError,
    Timeout,
    RateLimited,
    Unauthorized,
    NotFound,
    InternalError,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::MissingRequired => "MISSING_REQUIRED",
            ErrorCode::TypeError => "TYPE_ERROR",
            ErrorCode::ConstraintViolation => "CONSTRAINT_VIOLATION",
            ErrorCode::ExecutionError => "EXECUTION_ERROR",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::InternalError => "INTERNAL_ERROR",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with its CTP code and a message meant for the person or agent who called.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    /// Optional structured detail carried in the result's `data` (e.g. "did you mean").
    pub data: Option<Value>,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The input was read but its content is not acceptable (malformed JSON, bad Base64, …).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message)
    }

    /// The input was acceptable but the operation failed.
    pub fn execution(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ExecutionError, message)
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ToolError {}

pub type ToolOutcome = Result<Value, ToolError>;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    /// Milliseconds spent executing, including validation.
    pub execution_time: f64,
    pub input_size: u64,
    pub output_size: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub tool_version: String,
}

/// One CTP ToolResult. Serialises to exactly the fields the schema allows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<ErrorCode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl ToolResult {
    pub fn ok(data: Value, metadata: Metadata) -> Self {
        ToolResult {
            success: true,
            data: Some(data),
            error: None,
            error_code: None,
            metadata: Some(metadata),
        }
    }

    pub fn err(error: ToolError, metadata: Option<Metadata>) -> Self {
        ToolResult {
            success: false,
            data: error.data,
            error: Some(error.message),
            error_code: Some(error.code),
            metadata,
        }
    }

    pub fn error_code(&self) -> Option<ErrorCode> {
        self.error_code
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl From<ToolError> for ToolResult {
    fn from(e: ToolError) -> Self {
        ToolResult::err(e, None)
    }
}
