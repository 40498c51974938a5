//! The tools that can run over their main input in pieces, as their descriptors say, and the
//! plans they run (`kit::plan`, re-exported here for the executor).

pub use super::kit::plan::{Emit, EmitEscaping, Output, Plan, PlanFn, run_in_memory, stop_error};

/// The streaming parameter and plan of tool `id`, if it streams.
pub fn streaming(id: &str) -> Option<(&'static str, PlanFn)> {
    let stream = super::descriptor(id)?.stream?;
    Some((stream.param, stream.plan))
}

#[cfg(test)]
mod tests {
    use crate::catalogue;

    #[test]
    fn streamed_parameters_are_plain_text_without_constraints() {
        // The streaming path validates the other arguments with this parameter left empty, so
        // a constraint on it would be skipped there.
        for tool in super::super::descriptors() {
            let Some(stream) = tool.stream else { continue };
            let id = tool.id;
            let def = catalogue::get(id).expect(id);
            let p = def.parameter(stream.param).expect(stream.param);
            assert!(
                p.validation.is_none(),
                "{id}.{} has validation rules",
                stream.param
            );
            assert!(
                matches!(
                    p.kind,
                    crate::ctp::ParamType::Text | crate::ctp::ParamType::Textarea
                ),
                "{id}.{}",
                stream.param
            );
        }
    }
}
