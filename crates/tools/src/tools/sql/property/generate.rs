//! The statement generator: random but reproducible SQL in each dialect, and random options.

use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Names that look like keywords to some tool but are plain identifiers everywhere.
const NAMES: &[&str] = &[
    "events",
    "user_id",
    "users",
    "data",
    "name",
    "value",
    "status",
    "Orders",
    "t1",
    "MixedCase",
    "year",
    "text",
    "level",
    "comment",
    "role",
    "amount",
    "créé",
    "x_1",
    "total$",
    "id",
];

const KEYWORD_NAMES_AFTER_DOT: &[&str] = &["end", "select", "order", "from", "case", "key"];

pub(super) struct Gen<'d> {
    pub(super) rng: Rng,
    pub(super) dialect: &'d str,
    pub(super) depth: usize,
}

impl Gen<'_> {
    fn ws(&mut self) -> &'static str {
        match self.rng.below(10) {
            0 => "\n",
            1 => "\r\n",
            2 => "\t",
            3 => "  ",
            _ => " ",
        }
    }

    fn name(&mut self) -> String {
        let d = self.dialect;
        let plain = self.rng.pick(NAMES).to_string();
        match self.rng.below(12) {
            0 => format!("\"{plain} \"\"q\"\"\""),
            1 if matches!(d, "mysql" | "sqlite" | "bigquery" | "generic") => {
                format!("`{plain} x`")
            }
            2 if matches!(d, "sqlserver" | "sqlite") => format!("[{plain} ]]x]"),
            3 if d == "sqlserver" => format!("#{plain}"),
            4 if d == "plsql" => format!("{plain}#x$"),
            5 if d == "postgresql" => format!("U&\"d\\0061{plain}\""),
            _ => plain,
        }
    }

    fn column(&mut self) -> String {
        match self.rng.below(6) {
            0 => format!("{}.{}", self.name(), self.rng.pick(KEYWORD_NAMES_AFTER_DOT)),
            1 => format!("{}.{}", self.name(), self.name()),
            _ => self.name(),
        }
    }

    fn number(&mut self) -> String {
        let n = self.rng.below(1000);
        match self.rng.below(9) {
            0 => format!("{n}.5E12"),
            1 => format!("{n}e-3"),
            2 => format!("{n}E+7"),
            3 => format!(".{n}"),
            4 => format!("{n}.{}", self.rng.below(99)),
            5 if matches!(self.dialect, "mysql" | "sqlserver" | "sqlite") => format!("0x{n:X}"),
            _ => n.to_string(),
        }
    }

    fn string(&mut self) -> String {
        let d = self.dialect;
        match self.rng.below(10) {
            0 => "'it''s  -- not a comment'".into(),
            1 => "'/* nor this */ # or this'".into(),
            // Generic SQL: `\'` escapes the quote unless a blank, `,`, `)` or `;` follows.
            3 if d == "generic" => {
                ["'it\\'s'", "'C:\\'", "'\\''", "'a\\\\'"][self.rng.below(4)].into()
            }
            2 if d == "postgresql" || d == "generic" => [
                "$$ select  1; 'x' $$",
                "$fn$ BEGIN  RETURN 1; END $fn$",
                "E'a\\'b'",
            ][self.rng.below(3)]
            .into(),
            3 if d == "postgresql" => "U&'d\\0061t\\+000061'".into(),
            4 if d == "mysql" => "'a\\'b' \"dq \\\" x\"".into(),
            5 if d == "bigquery" => [
                "'''tri ' ple'''",
                "r'raw\\d+'",
                "b\"bytes\"",
                "\"\"\"x\"\"\"",
            ][self.rng.below(4)]
            .into(),
            6 if d == "plsql" => "q'[it's]'".into(),
            7 if matches!(
                d,
                "sqlserver" | "mysql" | "postgresql" | "generic" | "plsql"
            ) =>
            {
                "N'ünï'".into()
            }
            8 if d == "sqlite" || d == "mysql" => "X'4142'".into(),
            _ => format!("'s{}'", self.rng.below(100)),
        }
    }

    fn param(&mut self) -> String {
        let d = self.dialect;
        match d {
            "postgresql" => format!("${}", self.rng.below(9) + 1),
            "mysql" => self.rng.pick(&["?", "@v", "@@session.sql_mode"]).into(),
            "sqlite" => self.rng.pick(&["?", "?2", ":n", "@n", "$n"]).into(),
            "sqlserver" => self.rng.pick(&["@p", "@@ROWCOUNT"]).into(),
            "plsql" => ":bind".into(),
            "bigquery" => "@param".into(),
            _ => self.rng.pick(&["?", ":name", "$1", "@x"]).into(),
        }
    }

    fn comment(&mut self) -> String {
        let d = self.dialect;
        match self.rng.below(5) {
            0 => "-- line  comment\n".into(),
            1 if matches!(d, "mysql" | "bigquery") => "# hash comment\n".into(),
            2 if matches!(d, "postgresql" | "sqlserver") => "/* a /* nested */ b */".into(),
            3 => "/* multi\n   line */".into(),
            _ => "/* block */".into(),
        }
    }

    fn atom(&mut self) -> String {
        match self.rng.below(8) {
            0 => self.number(),
            1 => self.string(),
            2 => self.param(),
            3 => "NULL".into(),
            _ => self.column(),
        }
    }

    fn expr(&mut self) -> String {
        self.depth += 1;
        let deep = self.depth > 2;
        let e = match if deep { 0 } else { self.rng.below(14) } {
            0..=3 => self.atom(),
            4 => format!(
                "{} {} {}",
                self.atom(),
                self.rng.pick(&["+", "-", "*", "/", "||", "%"]),
                self.expr()
            ),
            5 => format!("-{}", self.atom()),
            6 => "count(*)".to_string(),
            7 => format!("coalesce({}, {})", self.expr(), self.atom()),
            8 => self.case(),
            9 => format!("({})", self.expr()),
            10 if self.dialect == "postgresql" => format!("{}::int", self.column()),
            10 => format!("CAST({} AS INT)", self.atom()),
            11 => format!("({})", self.select()),
            12 => format!(
                "sum({}) over (partition by {} order by {})",
                self.column(),
                self.column(),
                self.column()
            ),
            // Functions named like clause keywords.
            13 if self.rng.chance(50) => {
                let f = self
                    .rng
                    .pick(&["window", "values", "left", "right", "replace", "insert"]);
                format!("{f}({}, {})", self.column(), self.atom())
            }
            _ => format!("{} is not null", self.column()),
        };
        self.depth -= 1;
        e
    }

    fn case(&mut self) -> String {
        let simple = self.rng.chance(40);
        let mut s = if simple {
            format!("CASE {}", self.column())
        } else {
            "CASE".to_string()
        };
        for _ in 0..=self.rng.below(3) {
            let when = if simple { self.atom() } else { self.cond() };
            s += &format!(" WHEN {when} THEN {}", self.atom());
        }
        if self.rng.chance(50) {
            s += &format!(" ELSE {}", self.atom());
        }
        s + " END"
    }

    fn cond(&mut self) -> String {
        self.depth += 1;
        let deep = self.depth > 2;
        let c = match if deep { 0 } else { self.rng.below(8) } {
            0 | 1 => format!(
                "{} {} {}",
                self.column(),
                self.rng.pick(&["=", "<>", "<", ">=", "!="]),
                self.atom()
            ),
            2 => format!(
                "{} between {} and {}",
                self.column(),
                self.atom(),
                self.atom()
            ),
            3 => format!("{} in ({}, {})", self.column(), self.atom(), self.atom()),
            4 => format!("{} and {}", self.cond(), self.cond()),
            5 => format!("({} or {})", self.cond(), self.cond()),
            6 => format!("exists ({})", self.select()),
            _ => format!("{} like {}", self.column(), self.string()),
        };
        self.depth -= 1;
        c
    }

    fn table(&mut self) -> String {
        match self.rng.below(6) {
            0 if self.depth < 2 => {
                self.depth += 1;
                let s = format!("({}) sub", self.select());
                self.depth -= 1;
                s
            }
            1 if self.dialect == "bigquery" => "`my-project.ds.events`".into(),
            2 => format!("{}.{}", self.name(), self.name()),
            _ => format!("{} {}", self.name(), self.rng.pick(&["e", "t", "AS x", ""])),
        }
    }

    fn list(&mut self, n: usize, f: impl Fn(&mut Self) -> String) -> String {
        (0..n).map(|_| f(self)).collect::<Vec<_>>().join(", ")
    }

    fn select(&mut self) -> String {
        let mut s = String::from("select ");
        if self.rng.chance(15) {
            s += "distinct ";
        }
        if self.dialect == "sqlserver" && self.rng.chance(20) {
            s += "top 5 ";
        }
        let n = 1 + self.rng.below(3);
        s += &self.list(n, |g| {
            let e = g.expr();
            if g.rng.chance(30) {
                format!("{e} as {}", g.name())
            } else {
                e
            }
        });
        if self.dialect == "bigquery" && self.rng.chance(10) {
            s += ", * except (a, b)";
        }
        s += &format!(" from {}", self.table());
        for _ in 0..self.rng.below(if self.depth == 0 { 3 } else { 2 }) {
            let join = self.rng.pick(&[
                "join",
                "left join",
                "natural join",
                "left outer join",
                "cross join",
                "inner join",
                "full outer join",
                "natural left join",
                "full join",
                "right outer join",
                "left semi join",
                "natural full outer join",
            ]);
            s += &format!(" {join} {}", self.table());
            if !join.contains("natural") && !join.contains("cross") {
                s += &format!(" on {}", self.cond());
            }
        }
        if self.dialect == "sqlserver" && self.rng.chance(10) {
            s += &format!(" cross apply {}", self.table());
        }
        if self.rng.chance(60) {
            s += &format!(" where {}", self.cond());
        }
        if self.rng.chance(25) {
            let n = 1 + self.rng.below(2);
            s += &format!(" group by {}", self.list(n, Self::column));
            if self.rng.chance(50) {
                s += &format!(" having {}", self.cond());
            }
        }
        if self.dialect == "bigquery" && self.rng.chance(10) {
            s += " qualify row_number() over (order by x) = 1";
        }
        if self.rng.chance(30) {
            s += &format!(" order by {} desc", self.column());
            if self.rng.chance(30) {
                s += " nulls last";
            }
        }
        if self.rng.chance(20) && self.dialect != "sqlserver" && self.dialect != "plsql" {
            s += &format!(" limit {}", self.rng.below(100));
            match self.rng.below(3) {
                0 => s += " offset 5",
                1 if self.dialect == "mysql" => s += ", 10",
                _ => {}
            }
        } else if self.rng.chance(10) && !matches!(self.dialect, "mysql" | "sqlite") {
            s += self.rng.pick(&[
                " offset 5 rows fetch first 3 rows only",
                " fetch next 1 row only",
                " offset 2 row",
                " fetch first 10 rows with ties",
            ]);
        }
        if self.depth == 0 && self.rng.chance(10) {
            let op = match self.dialect {
                "plsql" => "minus",
                "bigquery" => "union distinct",
                _ => self
                    .rng
                    .pick(&["union", "union all", "intersect", "except"]),
            };
            s += &format!(" {op} {}", self.select());
        }
        s
    }

    fn statement(&mut self) -> String {
        self.depth = 0;
        match self.rng.below(16) {
            0 | 1 => {
                let rows = 1 + self.rng.below(5);
                let cols = 1 + self.rng.below(3);
                let names = self.list(cols, Self::name);
                let values = (0..rows)
                    .map(|_| format!("({})", self.list(cols, Self::atom)))
                    .collect::<Vec<_>>()
                    .join(if self.rng.chance(50) { "," } else { ", " });
                format!("insert into {} ({names}) values {values}", self.name())
            }
            2 => {
                let sets = 1 + self.rng.below(3);
                let list = self.list(sets, |g| format!("{} = {}", g.name(), g.expr()));
                format!("update {} set {list} where {}", self.name(), self.cond())
            }
            3 => format!("delete from {} where {}", self.name(), self.cond()),
            4 | 5 => {
                let rec = if self.rng.chance(20) {
                    "recursive "
                } else {
                    ""
                };
                let n = 1 + self.rng.below(2);
                let ctes = self.list(n, |g| {
                    g.depth = 1;
                    format!("{} as ({})", g.name(), g.select())
                });
                self.depth = 0;
                format!("with {rec}{ctes} {}", self.select())
            }
            6 if self.rng.chance(30) => {
                let n = 1 + self.rng.below(3);
                let actions = self.list(n, |g| {
                    let col = g.name();
                    match g.rng.below(6) {
                        0 => format!("add column {col} int"),
                        1 => format!("drop column {col}"),
                        2 => format!("alter column {col} set not null"),
                        3 => format!("modify {col} varchar(10) not null"),
                        4 => format!("change {col} {} int", g.name()),
                        _ => format!("rename column {col} to {}", g.name()),
                    }
                });
                format!("alter table {} {actions}", self.name())
            }
            6 => {
                let n = 1 + self.rng.below(4);
                let cols = self.list(n, |g| {
                    let ty = g
                        .rng
                        .pick(&["int", "varchar(100)", "numeric(10, 2)", "text", "date"]);
                    let extra = g.rng.pick(&["", " not null", " primary key", " default 0"]);
                    format!("{} {ty}{extra}", g.name())
                });
                format!("create table {} ({cols})", self.name())
            }
            7 => self.soup(),
            _ => self.select(),
        }
    }

    /// Tokens in no grammatical order, to stress the layout's tolerance.
    fn soup(&mut self) -> String {
        let pieces = [
            "(",
            ")",
            ",",
            "select",
            "from",
            "where",
            "and",
            "case",
            "end",
            "when",
            "then",
            "join",
            "values",
            "(1, 2)",
            "natural",
            "left",
            "set",
            "=",
            "-",
            "*",
            ".",
            "on",
            "group by",
            "union",
            "with",
            "as",
            "between",
            "offset",
            "limit",
            "full",
            "outer",
            "fetch",
            "first",
            "rows",
            "only",
            "alter table",
            "modify",
            "window(",
            "values(",
            "add",
        ];
        let mut s = String::new();
        for _ in 0..(3 + self.rng.below(20)) {
            let p = match self.rng.below(4) {
                0 => self.atom(),
                _ => self.rng.pick(&pieces).to_string(),
            };
            s += &p;
            s += " ";
        }
        s
    }

    /// A statement with comments and irregular whitespace between its words.
    pub(super) fn decorated(&mut self) -> String {
        let stmt = self.statement();
        let mut out = String::new();
        for (k, word) in stmt.split(' ').enumerate() {
            if k > 0 {
                out += self.ws();
            }
            out += word;
            if self.rng.chance(3) {
                out += " ";
                out += &self.comment();
            }
        }
        if self.rng.chance(50) {
            out += ";";
        }
        out
    }
}

pub(super) fn random_options(rng: &mut Rng, dialect: &str, has_line_comment: bool) -> Value {
    let minify = rng.chance(if has_line_comment { 5 } else { 20 });
    json!({
        "mode": if minify { "minify" } else { "format" },
        "indent": rng.pick(&["2", "4", "tab"]),
        "keywordCase": rng.pick(&["upper", "lower", "preserve"]),
        "linesBetweenQueries": 1 + rng.below(5),
        "commaPosition": rng.pick(&["trailing", "leading"]),
        "dialect": dialect,
    })
}
