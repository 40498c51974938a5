//! `docker run` command lines to a Compose file (the Compose Specification's service keys).
//!
//! Words are split as a POSIX shell would (shell-words); each logical line is one command and
//! becomes one service. The YAML goes through the JSON→YAML writer, which quotes strings a
//! YAML 1.1 reader would misread (port mappings such as 22:22 are base-60 numbers there).

use crate::ctp::{ToolError, ToolOutcome};
use crate::tools::config::yaml;
use crate::tools::kit::args::Args;
use crate::tools::kit::line_breaks;
use crate::tools::kit::tool::Tool;
use serde_json::{Map, Value, json};

pub(crate) const TOOLS: &[Tool] = &[Tool::new("docker-run-to-compose", docker_run_to_compose)];

/// `docker run` flags that take no value (docker run --help, Docker 28).
const BOOL_FLAGS: &[&str] = &[
    "detach",
    "interactive",
    "tty",
    "rm",
    "privileged",
    "init",
    "read-only",
    "publish-all",
    "sig-proxy",
    "no-healthcheck",
    "oom-kill-disable",
    "disable-content-trust",
    "quiet",
    "help",
    "use-api-socket",
];

fn long_name(short: char) -> Option<&'static str> {
    Some(match short {
        'a' => "attach",
        'c' => "cpu-shares",
        'd' => "detach",
        'e' => "env",
        'h' => "hostname",
        'i' => "interactive",
        'l' => "label",
        'm' => "memory",
        'p' => "publish",
        'P' => "publish-all",
        'q' => "quiet",
        't' => "tty",
        'u' => "user",
        'v' => "volume",
        'w' => "workdir",
        _ => return None,
    })
}

/// What one `docker run` command becomes.
#[derive(Default)]
struct Service {
    image: Option<String>,
    keys: Map<String, Value>,
    networks: Vec<String>,
    volumes: Vec<String>,
    warnings: Vec<String>,
}

impl Service {
    fn set(&mut self, key: &str, value: Value) {
        self.keys.insert(key.to_string(), value);
    }

    fn push(&mut self, key: &str, value: Value) {
        let slot = self
            .keys
            .entry(key.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = slot {
            items.push(value);
        }
    }

    /// Sets `key.sub` inside a nested mapping (logging.options, healthcheck, ulimits).
    fn nested(&mut self, path: &[&str], value: Value) {
        let mut slot = self
            .keys
            .entry(path[0].to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        for part in &path[1..] {
            if !slot.is_object() {
                *slot = Value::Object(Map::new());
            }
            let Value::Object(map) = slot else { return };
            slot = map
                .entry(part.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
        }
        *slot = value;
    }
}

fn number_or_string(text: &str) -> Value {
    text.parse::<i64>()
        .map(Value::from)
        .or_else(|_| {
            text.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or(())
        })
        .unwrap_or_else(|_| Value::String(text.to_string()))
}

fn integer(flag: &str, text: &str) -> Result<Value, ToolError> {
    text.parse::<i64>()
        .map(Value::from)
        .map_err(|_| ToolError::invalid(format!("--{flag} expects a whole number, got '{text}'")))
}

fn parse_bool(flag: &str, text: &str) -> Result<bool, ToolError> {
    match text.to_ascii_lowercase().as_str() {
        "" | "true" | "1" | "t" => Ok(true),
        "false" | "0" | "f" => Ok(false),
        _ => Err(ToolError::invalid(format!(
            "--{flag} is a switch; --{flag}={text} is not true or false"
        ))),
    }
}

/// A named volume is a source that is not a path (`data:/var/lib/mysql`).
fn named_volume(spec: &str) -> Option<&str> {
    let (source, _) = spec.split_once(':')?;
    let is_path = source.is_empty()
        || source.starts_with(['/', '.', '~', '$', '\\'])
        || source.contains(['/', '\\']);
    (!is_path).then_some(source)
}

fn apply(
    svc: &mut Service,
    flag: &str,
    shown: &str,
    value: Option<String>,
) -> Result<(), ToolError> {
    let v = value.unwrap_or_default();
    match flag {
        "detach" => svc.warnings.push(format!(
            "{shown} ignored: services start in the background with `docker compose up -d`"
        )),
        "rm" => svc.warnings.push(format!(
            "{shown} has no Compose equivalent: Compose keeps stopped containers (`docker compose run --rm` removes one-off containers)"
        )),
        "interactive" => svc.set("stdin_open", Value::Bool(parse_bool(flag, &v)?)),
        "tty" => svc.set("tty", Value::Bool(parse_bool(flag, &v)?)),
        "privileged" => svc.set("privileged", Value::Bool(parse_bool(flag, &v)?)),
        "init" => svc.set("init", Value::Bool(parse_bool(flag, &v)?)),
        "read-only" => svc.set("read_only", Value::Bool(parse_bool(flag, &v)?)),
        "oom-kill-disable" => svc.set("oom_kill_disable", Value::Bool(parse_bool(flag, &v)?)),
        "no-healthcheck" => svc.nested(&["healthcheck", "disable"], Value::Bool(true)),
        "name" => svc.set("container_name", Value::String(v)),
        "publish" => svc.push("ports", Value::String(v)),
        "expose" => svc.push("expose", Value::String(v)),
        "volume" => {
            if let Some(name) = named_volume(&v) {
                svc.volumes.push(name.to_string());
            }
            svc.push("volumes", Value::String(v));
        }
        "mount" => {
            let mount = parse_mount(&v, &mut svc.warnings)?;
            if let (true, Some(source)) = (mount["type"] == "volume", mount["source"].as_str()) {
                svc.volumes.push(source.to_string());
            }
            svc.push("volumes", mount);
        }
        "tmpfs" => svc.push("tmpfs", Value::String(v)),
        "env" => svc.push("environment", Value::String(v)),
        "env-file" => svc.push("env_file", Value::String(v)),
        "label" => svc.push("labels", Value::String(v)),
        "restart" => svc.set("restart", Value::String(v)),
        "network" | "net" => {
            let builtin = matches!(v.as_str(), "host" | "none" | "bridge" | "default")
                || v.starts_with("container:")
                || v.starts_with("service:");
            if builtin {
                svc.set("network_mode", Value::String(v));
            } else {
                let name = v.split(',').next().unwrap_or_default();
                let name = name.strip_prefix("name=").unwrap_or(name).to_string();
                svc.push("networks", Value::String(name.clone()));
                svc.networks.push(name);
            }
        }
        "workdir" => svc.set("working_dir", Value::String(v)),
        "entrypoint" => svc.set("entrypoint", json!([v])),
        "user" => svc.set("user", Value::String(v)),
        "hostname" => svc.set("hostname", Value::String(v)),
        "domainname" => svc.set("domainname", Value::String(v)),
        "cap-add" => svc.push("cap_add", Value::String(v)),
        "cap-drop" => svc.push("cap_drop", Value::String(v)),
        "log-driver" => svc.nested(&["logging", "driver"], Value::String(v)),
        "log-opt" => {
            let (k, val) = v.split_once('=').ok_or_else(|| {
                ToolError::invalid(format!("{shown} expects key=value, got '{v}'"))
            })?;
            svc.nested(&["logging", "options", k], Value::String(val.to_string()));
        }
        "dns" => svc.push("dns", Value::String(v)),
        "dns-search" => svc.push("dns_search", Value::String(v)),
        "dns-option" | "dns-opt" => svc.push("dns_opt", Value::String(v)),
        "add-host" => svc.push("extra_hosts", Value::String(v)),
        "device" => svc.push("devices", Value::String(v)),
        "device-cgroup-rule" => svc.push("device_cgroup_rules", Value::String(v)),
        "memory" => svc.set("mem_limit", Value::String(v)),
        "memory-reservation" => svc.set("mem_reservation", Value::String(v)),
        "memory-swap" => svc.set("memswap_limit", Value::String(v)),
        "cpus" => svc.set("cpus", number_or_string(&v)),
        "cpu-shares" => svc.set("cpu_shares", integer(flag, &v)?),
        "cpuset-cpus" => svc.set("cpuset", Value::String(v)),
        "shm-size" => svc.set("shm_size", Value::String(v)),
        "pids-limit" => svc.set("pids_limit", integer(flag, &v)?),
        "oom-score-adj" => svc.set("oom_score_adj", integer(flag, &v)?),
        "ulimit" => {
            let (name, limits) = v.split_once('=').ok_or_else(|| {
                ToolError::invalid(format!("{shown} expects name=soft[:hard], got '{v}'"))
            })?;
            let limit = match limits.split_once(':') {
                Some((soft, hard)) => {
                    json!({"soft": integer(flag, soft)?, "hard": integer(flag, hard)?})
                }
                None => integer(flag, limits)?,
            };
            svc.nested(&["ulimits", name], limit);
        }
        "security-opt" => svc.push("security_opt", Value::String(v)),
        "sysctl" => svc.push("sysctls", Value::String(v)),
        "platform" => svc.set("platform", Value::String(v)),
        "pull" => svc.set("pull_policy", Value::String(v)),
        "ipc" => svc.set("ipc", Value::String(v)),
        "pid" => svc.set("pid", Value::String(v)),
        "uts" => svc.set("uts", Value::String(v)),
        "userns" => svc.set("userns_mode", Value::String(v)),
        "cgroupns" => svc.set("cgroup", Value::String(v)),
        "cgroup-parent" => svc.set("cgroup_parent", Value::String(v)),
        "stop-signal" => svc.set("stop_signal", Value::String(v)),
        "stop-timeout" => {
            integer(flag, &v)?;
            svc.set("stop_grace_period", Value::String(format!("{v}s")));
        }
        "health-cmd" => svc.nested(&["healthcheck", "test"], json!(["CMD-SHELL", v])),
        "health-interval" => svc.nested(&["healthcheck", "interval"], Value::String(v)),
        "health-timeout" => svc.nested(&["healthcheck", "timeout"], Value::String(v)),
        "health-start-period" => svc.nested(&["healthcheck", "start_period"], Value::String(v)),
        "health-retries" => svc.nested(&["healthcheck", "retries"], integer(flag, &v)?),
        "link" => svc.push("links", Value::String(v)),
        "group-add" => svc.push("group_add", Value::String(v)),
        "volumes-from" => svc.push("volumes_from", Value::String(v)),
        "mac-address" => svc.set("mac_address", Value::String(v)),
        "runtime" => svc.set("runtime", Value::String(v)),
        "isolation" => svc.set("isolation", Value::String(v)),
        "storage-opt" => {
            let (k, val) = v.split_once('=').unwrap_or((v.as_str(), ""));
            svc.nested(&["storage_opt", k], Value::String(val.to_string()));
        }
        "gpus" => {
            let count = if v == "all" {
                Value::String(v)
            } else {
                integer(flag, &v).unwrap_or(Value::String(v))
            };
            svc.push(
                "deploy_gpus",
                json!({"driver": "nvidia", "count": count, "capabilities": ["gpu"]}),
            );
        }
        _ => {
            let known = BOOL_FLAGS.contains(&flag);
            let shown_value = if v.is_empty() || known {
                shown.to_string()
            } else {
                format!("{shown} {v}")
            };
            svc.warnings.push(format!(
                "{shown_value} not converted: no Compose equivalent in this converter"
            ));
        }
    }
    Ok(())
}

/// `--mount type=bind,source=/src,target=/dst,readonly` in the Compose long volume syntax.
fn parse_mount(spec: &str, warnings: &mut Vec<String>) -> Result<Value, ToolError> {
    let mut out = Map::new();
    out.insert("type".into(), Value::String("volume".into()));
    for part in spec.split(',') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match k {
            "type" => {
                out.insert("type".into(), Value::String(v.into()));
            }
            "source" | "src" => {
                out.insert("source".into(), Value::String(v.into()));
            }
            "target" | "destination" | "dst" => {
                out.insert("target".into(), Value::String(v.into()));
            }
            "readonly" | "ro" => {
                out.insert(
                    "read_only".into(),
                    Value::Bool(parse_bool("mount readonly", v)?),
                );
            }
            "bind-propagation" => {
                out.insert("bind".into(), json!({"propagation": v}));
            }
            "volume-nocopy" => {
                out.insert(
                    "volume".into(),
                    json!({"nocopy": parse_bool("mount volume-nocopy", v)?}),
                );
            }
            "tmpfs-size" => {
                out.insert("tmpfs".into(), json!({"size": number_or_string(v)}));
            }
            _ => warnings.push(format!("--mount option '{part}' not converted")),
        }
    }
    if !out.contains_key("target") {
        return Err(ToolError::invalid(format!(
            "--mount {spec} has no target= (or destination=/dst=)"
        )));
    }
    Ok(Value::Object(out))
}

/// Parses one command's words (after `docker run`) into a service.
fn parse_command(words: &[String]) -> Result<Service, ToolError> {
    let mut svc = Service::default();
    let mut i = 0;
    let next_value = |i: &mut usize, shown: &str| -> Result<String, ToolError> {
        *i += 1;
        words.get(*i).cloned().ok_or_else(|| {
            ToolError::invalid(format!("{shown} needs a value, but the command ends there"))
        })
    };
    while i < words.len() {
        let word = &words[i];
        if word == "--" {
            i += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let shown = format!("--{name}");
            let value = if BOOL_FLAGS.contains(&name) {
                inline
            } else {
                match inline {
                    Some(v) => Some(v),
                    None => Some(next_value(&mut i, &shown)?),
                }
            };
            apply(&mut svc, name, &shown, value)?;
        } else if word.len() > 1 && word.starts_with('-') {
            let group: Vec<char> = word.chars().skip(1).collect();
            for (at, &c) in group.iter().enumerate() {
                let shown = format!("-{c}");
                let name = long_name(c);
                if name.is_some_and(|n| BOOL_FLAGS.contains(&n)) {
                    apply(&mut svc, name.unwrap_or_default(), &shown, None)?;
                    continue;
                }
                // A flag with a value takes the rest of the group (-p8080:80) or the next word.
                let rest: String = group[at + 1..].iter().collect();
                let rest = rest.strip_prefix('=').map(str::to_string).unwrap_or(rest);
                let value = if rest.is_empty() {
                    next_value(&mut i, &shown)?
                } else {
                    rest
                };
                match name {
                    Some(n) => apply(&mut svc, n, &shown, Some(value))?,
                    None => svc.warnings.push(format!(
                        "{shown} {value} not converted: not a known docker run flag"
                    )),
                }
                break;
            }
        } else {
            break;
        }
        i += 1;
    }
    let image = words.get(i).ok_or_else(|| {
        ToolError::invalid(
            "no image found: expected `docker run [OPTIONS] IMAGE [COMMAND] [ARG...]`",
        )
    })?;
    svc.image = Some(image.clone());
    let command: Vec<Value> = words[i + 1..].iter().cloned().map(Value::String).collect();
    if !command.is_empty() {
        svc.set("command", Value::Array(command));
    }
    Ok(svc)
}

/// Drops `sudo`, `docker`/`podman`, `container` and `run`/`create` in front of the options.
fn strip_prefix(words: &[String]) -> Result<&[String], ToolError> {
    let mut rest = words;
    if rest.first().is_some_and(|w| w == "sudo") {
        rest = &rest[1..];
    }
    if rest.first().is_some_and(|w| w == "docker" || w == "podman") {
        rest = &rest[1..];
        if rest.first().is_some_and(|w| w == "container") {
            rest = &rest[1..];
        }
        match rest.first().map(String::as_str) {
            Some("run" | "create") => rest = &rest[1..],
            other => {
                return Err(ToolError::invalid(format!(
                    "expected `docker run` or `docker create`, found `docker {}`",
                    other.unwrap_or("")
                )));
            }
        }
    } else if rest.first().is_some_and(|w| w == "run" || w == "create") {
        rest = &rest[1..];
    }
    Ok(rest)
}

/// The image's repository name without registry, tag or digest, made a valid service name.
fn service_name(image: &str) -> String {
    let base = image.split('@').next().unwrap_or(image);
    let base = base.rsplit('/').next().unwrap_or(base);
    let base = base.split(':').next().unwrap_or(base);
    let name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() { "app".into() } else { name }
}

/// Splits the input into commands: one per line, a trailing backslash continuing the line.
fn commands(input: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in line_breaks::lines(input) {
        let line = line.trim_end();
        match line.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                let trimmed = current.trim().trim_start_matches("$ ").trim();
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    out.push(trimmed.to_string());
                }
                current.clear();
            }
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

fn docker_run_to_compose(args: &Args) -> ToolOutcome {
    let input = args.str("input")?;
    let lines = commands(input);
    if lines.is_empty() {
        return Err(ToolError::invalid(
            "input is empty: expected a command such as `docker run -p 80:80 nginx`",
        ));
    }
    let mut services = Map::new();
    let mut networks = Map::new();
    let mut volumes = Map::new();
    let mut warnings = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let words = shell_words::split(line).map_err(|_| {
            ToolError::invalid(format!(
                "command {}: a quote is never closed (shell syntax)",
                n + 1
            ))
        })?;
        let mut svc = parse_command(strip_prefix(&words)?).map_err(|e| {
            if lines.len() > 1 {
                ToolError::invalid(format!("command {}: {}", n + 1, e.message))
            } else {
                e
            }
        })?;
        let image = svc.image.take().unwrap_or_default();
        let base = service_name(&image);
        let mut name = base.clone();
        let mut k = 2;
        while services.contains_key(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        let mut body = Map::new();
        body.insert("image".into(), Value::String(image));
        if let Some(container) = svc.keys.shift_remove("container_name") {
            body.insert("container_name".into(), container);
        }
        for (k, v) in std::mem::take(&mut svc.keys) {
            if k == "deploy_gpus" {
                body.insert(
                    "deploy".into(),
                    json!({"resources": {"reservations": {"devices": v}}}),
                );
            } else {
                body.insert(k, v);
            }
        }
        for net in svc.networks {
            networks.insert(net, json!({"external": true}));
        }
        for vol in svc.volumes {
            volumes.insert(vol, json!({"external": true}));
        }
        let prefix = if lines.len() > 1 {
            format!("{name}: ")
        } else {
            String::new()
        };
        warnings.extend(svc.warnings.into_iter().map(|w| format!("{prefix}{w}")));
        services.insert(name, Value::Object(body));
    }
    let mut doc = Map::new();
    doc.insert("services".into(), Value::Object(services));
    if !networks.is_empty() {
        doc.insert("networks".into(), Value::Object(networks));
    }
    if !volumes.is_empty() {
        doc.insert("volumes".into(), Value::Object(volumes));
    }
    let text = serde_json::to_string(&Value::Object(doc))
        .map_err(|e| ToolError::execution(format!("JSON serialisation failed: {e}")))?;
    Ok(json!({ "output": yaml::json_text_to_yaml(&text)?, "warnings": warnings }))
}

#[cfg(test)]
mod tests {
    use crate::ctp::ErrorCode;
    use crate::tools::kit::testing::{run_err, run_ok};
    use serde_json::json;

    fn convert(cmd: &str) -> (String, serde_json::Value) {
        let data = run_ok("docker-run-to-compose", json!({ "input": cmd }));
        (
            data["output"].as_str().unwrap().to_string(),
            data["warnings"].clone(),
        )
    }

    // The example from the composerize README.
    #[test]
    fn composerize_readme_example() {
        let (yaml, warnings) = convert(
            "docker run -p 80:80 -v /var/run/docker.sock:/tmp/docker.sock:ro --restart always --log-opt max-size=1g nginx",
        );
        assert_eq!(
            yaml,
            "services:\n  nginx:\n    image: nginx\n    ports:\n    - 80:80\n    volumes:\n    - /var/run/docker.sock:/tmp/docker.sock:ro\n    restart: always\n    logging:\n      options:\n        max-size: 1g\n"
        );
        assert_eq!(warnings, json!([]));
    }

    // composerize's tests: quoted names, -t, repeated -v/-p, `docker container run`.
    #[test]
    fn composerize_multiple_args_and_quotes() {
        let (yaml, _) = convert(
            "docker run -t --name=\"youtrack\" -v /data/youtrack/data/:/opt/youtrack/data/ -v /data/youtrack/backup/:/opt/youtrack/backup/ -p 80:80 -p 3232:22351 uniplug/youtrack",
        );
        assert_eq!(
            yaml,
            "services:\n  youtrack:\n    image: uniplug/youtrack\n    container_name: youtrack\n    tty: true\n    volumes:\n    - /data/youtrack/data/:/opt/youtrack/data/\n    - /data/youtrack/backup/:/opt/youtrack/backup/\n    ports:\n    - 80:80\n    - 3232:22351\n"
        );
        let (yaml, _) = convert("docker container run -p 80:80 foobar/baz:latest");
        assert_eq!(
            yaml,
            "services:\n  baz:\n    image: foobar/baz:latest\n    ports:\n    - 80:80\n"
        );
    }

    // composerize's "unknown args" and "--rm" tests: nothing is dropped silently.
    #[test]
    fn unknown_flags_and_rm_become_warnings() {
        let (yaml, warnings) =
            convert("docker run --rm -d --name=\"foobar\" -z machin --unknown-long truc nginx");
        assert_eq!(
            yaml,
            "services:\n  nginx:\n    image: nginx\n    container_name: foobar\n"
        );
        let w: Vec<&str> = warnings
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(w[0].starts_with("--rm has no Compose equivalent"), "{w:?}");
        assert!(w[1].starts_with("-d ignored"), "{w:?}");
        assert!(w[2].starts_with("-z machin not converted"), "{w:?}");
        assert!(
            w[3].starts_with("--unknown-long truc not converted"),
            "{w:?}"
        );
    }

    #[test]
    fn many_flags_continuations_and_command() {
        let cmd = "sudo docker run -itd \\\n  --name db -e POSTGRES_PASSWORD=secret -e PGDATA --env-file ./db.env \\\n  -v pgdata:/var/lib/postgresql/data --network backend -w /work --entrypoint /docker-entrypoint.sh \\\n  --user 999:999 -l com.example.tier=db --cap-add SYS_ADMIN --privileged -h dbhost -p 22:22 \\\n  --health-cmd 'pg_isready -U postgres' --health-retries 5 --ulimit nofile=1024:2048 \\\n  postgres:16 postgres -c 'max_connections=200'";
        let (yaml, warnings) = convert(cmd);
        assert_eq!(
            yaml,
            "services:\n  postgres:\n    image: postgres:16\n    container_name: db\n    stdin_open: true\n    tty: true\n    environment:\n    - POSTGRES_PASSWORD=secret\n    - PGDATA\n    env_file:\n    - ./db.env\n    volumes:\n    - pgdata:/var/lib/postgresql/data\n    networks:\n    - backend\n    working_dir: /work\n    entrypoint:\n    - /docker-entrypoint.sh\n    user: 999:999\n    labels:\n    - com.example.tier=db\n    cap_add:\n    - SYS_ADMIN\n    privileged: true\n    hostname: dbhost\n    ports:\n    - '22:22'\n    healthcheck:\n      test:\n      - CMD-SHELL\n      - pg_isready -U postgres\n      retries: 5\n    ulimits:\n      nofile:\n        soft: 1024\n        hard: 2048\n    command:\n    - postgres\n    - -c\n    - max_connections=200\nnetworks:\n  backend:\n    external: true\nvolumes:\n  pgdata:\n    external: true\n"
        );
        assert_eq!(warnings.as_array().unwrap().len(), 1);
    }

    #[test]
    fn several_commands_become_several_services() {
        let (yaml, _) = convert(
            "docker run -p 80:80 foobar/baz:latest\n# comment\n\ndocker run -p 8080:80 foobar/baz:latest\n",
        );
        assert_eq!(
            yaml,
            "services:\n  baz:\n    image: foobar/baz:latest\n    ports:\n    - 80:80\n  baz-2:\n    image: foobar/baz:latest\n    ports:\n    - 8080:80\n"
        );
    }

    #[test]
    fn errors_are_explained() {
        let (code, msg) = run_err(
            "docker-run-to-compose",
            json!({"input": "docker run -p 80:80"}),
        );
        assert_eq!(code, ErrorCode::InvalidInput);
        assert!(msg.starts_with("no image found"), "{msg}");
        let (_, msg) = run_err(
            "docker-run-to-compose",
            json!({"input": "docker run --name 'web nginx"}),
        );
        assert!(msg.contains("quote is never closed"), "{msg}");
        let (_, msg) = run_err("docker-run-to-compose", json!({"input": "docker ps -a"}));
        assert!(msg.contains("found `docker ps`"), "{msg}");
        // After the image every word belongs to the container's command.
        let (yaml, _) = convert("docker run nginx --restart");
        assert!(yaml.ends_with("command:\n    - --restart\n"), "{yaml}");
        let (_, msg) = run_err(
            "docker-run-to-compose",
            json!({"input": "docker run --restart"}),
        );
        assert!(msg.contains("--restart needs a value"), "{msg}");
    }
}
