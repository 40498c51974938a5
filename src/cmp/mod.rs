//! The CMP model: manifests, capabilities, the registry of installed tools and the exporter.
