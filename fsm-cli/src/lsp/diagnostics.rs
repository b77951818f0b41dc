//! Diagnostics as the protocol has them: the same code, severity, message,
//! help and range as `fsmc check`, linked to the code's section of
//! docs/diagnostics.md (the page `fsmc explain CODE` prints).

use super::documents::Document;
use fsm_grammar::{Code, Diagnostic, Severity};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location,
    NumberOrString, Uri,
};

/// Where docs/diagnostics.md is read on the web: the repository's copy.
const DIAGNOSTICS_PAGE: &str = concat!("https://github.com/fsmc/fsmc", "/blob/main/docs/diagnostics.md");

/// The link to `code`'s section of docs/diagnostics.md (its heading is the code).
pub fn docs_url(code: Code) -> String {
    format!("{DIAGNOSTICS_PAGE}#{}", code.name())
}

/// `diagnostic` in the protocol's terms. The help line follows the message,
/// as in `fsmc check`'s reports; secondary labels are related information.
pub fn to_lsp(document: &Document, uri: &Uri, diagnostic: &Diagnostic) -> lsp_types::Diagnostic {
    let related = diagnostic
        .secondary
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), document.range(label.span)),
            message: label.message.clone(),
        })
        .collect::<Vec<_>>();
    let tags = matches!(diagnostic.code, Code::UnusedDeclaration | Code::UnreachableState)
        .then(|| vec![DiagnosticTag::UNNECESSARY]);
    lsp_types::Diagnostic {
        range: document.range(diagnostic.span),
        severity: Some(match diagnostic.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(diagnostic.code.name().to_string())),
        code_description: docs_url(diagnostic.code)
            .parse()
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("fsmc".to_string()),
        message: format!("{}\nhelp: {}", diagnostic.message, diagnostic.help),
        related_information: (!related.is_empty()).then_some(related),
        tags,
        data: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_links_to_its_section() {
        for &code in Code::ALL {
            let url = docs_url(code);
            assert!(url.parse::<Uri>().is_ok(), "{url}");
            assert!(url.ends_with(&format!("diagnostics.md#{}", code.name())));
            let page = include_str!("../../../docs/diagnostics.md");
            assert!(
                page.contains(&format!("\n## {}\n", code.name())),
                "no section for {code}"
            );
        }
    }
}
