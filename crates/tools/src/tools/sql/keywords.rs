//! Which words sql-formatter may re-case: reserved words (which cannot be unquoted names, so
//! their case never matters) and a few words that are keywords only where layout places them.

use super::lex::Dialect;

/// Reserved in MySQL 8 (whose table names are case-sensitive) and in standard SQL, so that
/// changing their case can never rename a table or column. Sorted for binary search.
const RESERVED: &[&str] = &[
    "ADD",
    "ALL",
    "ALTER",
    "AND",
    "AS",
    "ASC",
    "BETWEEN",
    "BIGINT",
    "BINARY",
    "BOTH",
    "BY",
    "CALL",
    "CASCADE",
    "CASE",
    "CHAR",
    "CHARACTER",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "CONSTRAINT",
    "CONVERT",
    "CREATE",
    "CROSS",
    "CUBE",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "CURRENT_USER",
    "CURSOR",
    "DECIMAL",
    "DECLARE",
    "DEFAULT",
    "DELETE",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "DOUBLE",
    "DROP",
    "EACH",
    "ELSE",
    "ELSEIF",
    "EXCEPT",
    "EXISTS",
    "EXPLAIN",
    "FALSE",
    "FETCH",
    "FLOAT",
    "FOR",
    "FOREIGN",
    "FROM",
    "FUNCTION",
    "GRANT",
    "GROUP",
    "GROUPING",
    "HAVING",
    "IF",
    "IN",
    "INDEX",
    "INNER",
    "INSERT",
    "INT",
    "INTEGER",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "KEY",
    "LATERAL",
    "LEADING",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "NATURAL",
    "NOT",
    "NULL",
    "NUMERIC",
    "OF",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "PRECISION",
    "PRIMARY",
    "PROCEDURE",
    "REAL",
    "RECURSIVE",
    "REFERENCES",
    "RETURN",
    "REVOKE",
    "RIGHT",
    "ROWS",
    "SELECT",
    "SET",
    "SMALLINT",
    "TABLE",
    "THEN",
    "TO",
    "TRAILING",
    "TRIGGER",
    "TRUE",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USING",
    "VALUES",
    "VARCHAR",
    "VARYING",
    "WHEN",
    "WHERE",
    "WHILE",
    "WINDOW",
    "WITH",
];

/// Keywords that are also legal names in some dialect: re-cased only where layout has placed
/// them as keywords (END closing CASE, OFFSET after LIMIT, a verb opening a statement, …).
const CONTEXTUAL: &[&str] = &[
    "ABORT",
    "ALWAYS",
    "ANALYZE",
    "APPLY",
    "BEGIN",
    "COMMIT",
    "DATABASE",
    "END",
    "EXTENSION",
    "FAIL",
    "FIRST",
    "IGNORE",
    "LAST",
    "MATERIALIZED",
    "MERGE",
    "MINUS",
    "NULLS",
    "OFFSET",
    "ONLY",
    "OVERWRITE",
    "QUALIFY",
    "REPLACE",
    "RETURNING",
    "ROLLBACK",
    "SCHEMA",
    "SEQUENCE",
    "START",
    "TEMP",
    "TEMPORARY",
    "TOP",
    "TRANSACTION",
    "TRUNCATE",
    "TYPE",
    "VACUUM",
    "VIEW",
];

/// The upper-case form of `word` when it is a keyword this module knows, else `None`.
pub(super) fn lookup(word: &str) -> Option<&'static str> {
    if word.len() > 20 || !word.is_ascii() {
        return None;
    }
    let upper = word.to_ascii_uppercase();
    RESERVED
        .binary_search(&upper.as_str())
        .ok()
        .map(|i| RESERVED[i])
        .or_else(|| {
            CONTEXTUAL
                .binary_search(&upper.as_str())
                .ok()
                .map(|i| CONTEXTUAL[i])
        })
}

/// Whether `kw` (from `lookup`) is reserved in `dialect` wherever it stands.
pub(super) fn reserved(kw: &str, dialect: Dialect) -> bool {
    if RESERVED.binary_search(&kw).is_ok() {
        return true;
    }
    // END cannot be a name outside MySQL; T-SQL reserves TOP.
    (kw == "END" && dialect != Dialect::MySql) || (kw == "TOP" && dialect == Dialect::SqlServer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_disjoint() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(CONTEXTUAL.windows(2).all(|w| w[0] < w[1]));
        assert!(
            CONTEXTUAL
                .iter()
                .all(|k| RESERVED.binary_search(k).is_err())
        );
        assert_eq!(lookup("select"), Some("SELECT"));
        assert_eq!(lookup("events"), None);
        assert_eq!(lookup("End"), Some("END"));
        assert!(!reserved("END", Dialect::MySql));
        assert!(reserved("END", Dialect::PostgreSql));
    }
}
