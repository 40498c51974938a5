//! The application error type and the process exit codes, kept in one place.

use crate::ctp::{ErrorCode, ToolError};
use std::fmt;
use std::path::PathBuf;

/// The documented, stable exit codes (README.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    Success = 0,
    /// The tool ran and failed, or the input content was rejected (INVALID_INPUT, EXECUTION_ERROR…).
    ToolFailed = 1,
    /// The command line or the parameters were wrong (missing, wrong type, constraint).
    Usage = 2,
    /// The action needs confirmation that was not given, or was declined.
    ConfirmationRequired = 3,
    /// The tool (or a program an adapter wraps) does not exist.
    NotFound = 4,
    /// The tool ran past its time limit.
    Timeout = 5,
    /// `cmpx do` found no single confident match; the candidates are printed, nothing ran.
    Ambiguous = 6,
}

impl ExitCode {
    pub const ALL: [ExitCode; 7] = [
        ExitCode::Success,
        ExitCode::ToolFailed,
        ExitCode::Usage,
        ExitCode::ConfirmationRequired,
        ExitCode::NotFound,
        ExitCode::Timeout,
        ExitCode::Ambiguous,
    ];

    pub fn code(self) -> i32 {
        self as i32
    }

    pub fn for_error_code(code: ErrorCode) -> ExitCode {
        match code {
            ErrorCode::MissingRequired | ErrorCode::TypeError | ErrorCode::ConstraintViolation => {
                ExitCode::Usage
            }
            ErrorCode::NotFound => ExitCode::NotFound,
            ErrorCode::Timeout => ExitCode::Timeout,
            ErrorCode::Unauthorized => ExitCode::ConfirmationRequired,
            ErrorCode::InvalidInput
            | ErrorCode::ExecutionError
            | ErrorCode::RateLimited
            | ErrorCode::InternalError => ExitCode::ToolFailed,
        }
    }
}

/// Errors raised outside a tool: bad command lines, file system trouble, invalid folders.
#[derive(Debug)]
pub enum Error {
    /// A tool-level failure carried to the edge unchanged.
    Tool(ToolError),
    /// The command line is wrong; the message says how.
    Usage(String),
    /// A file system operation failed on `path`.
    Io {
        path: PathBuf,
        action: &'static str,
        source: std::io::Error,
    },
    /// Validation found problems; each entry names the file and field.
    Invalid(Vec<String>),
}

impl Error {
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            action,
            source,
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Tool(e) => ExitCode::for_error_code(e.code),
            Error::Usage(_) => ExitCode::Usage,
            Error::Io { .. } | Error::Invalid(_) => ExitCode::ToolFailed,
        }
    }

    /// The CTP error code this error is reported under in a JSON result.
    pub fn error_code(&self) -> ErrorCode {
        match self {
            Error::Tool(e) => e.code,
            Error::Usage(_) | Error::Invalid(_) => ErrorCode::InvalidInput,
            Error::Io { .. } => ErrorCode::ExecutionError,
        }
    }

    /// The error as a ToolError, for printing as a CTP result.
    pub fn into_tool_error(self) -> ToolError {
        match self {
            Error::Tool(e) => e,
            Error::Invalid(problems) => {
                let message = self_message_invalid(&problems);
                ToolError::new(ErrorCode::InvalidInput, message)
                    .with_data(serde_json::json!({ "problems": problems }))
            }
            other => ToolError::new(other.error_code(), other.to_string()),
        }
    }
}

fn self_message_invalid(problems: &[String]) -> String {
    match problems.len() {
        1 => problems[0].clone(),
        n => format!("{n} problems found; the first: {}", problems[0]),
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Tool(e) => write!(f, "{}", e.message),
            Error::Usage(m) => write!(f, "{m}"),
            Error::Io {
                path,
                action,
                source,
            } => write!(f, "cannot {action} {}: {source}", path.display()),
            Error::Invalid(problems) => write!(f, "{}", self_message_invalid(problems)),
        }
    }
}

impl std::error::Error for Error {}

impl From<ToolError> for Error {
    fn from(e: ToolError) -> Self {
        Error::Tool(e)
    }
}
