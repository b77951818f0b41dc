//! The server's state and its dispatch: one struct holding the open
//! documents, and one plain function per request in the modules beside
//! this one. Everything here is synchronous and returns the messages to
//! send, so tests can drive it without a client.

use super::analysis::Analysis;
use super::documents::{Document, Encoding};
use super::{
    actions, completion, diagnostics, folding, format, hover, navigation, rename, semantic_tokens, symbols,
};
use crate::config;
use fsm_grammar::LintOptions;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response, ResponseError};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// What the main loop does after a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Go on reading messages.
    Continue,
    /// The client sent `exit`: stop, successfully when it asked for shutdown first.
    Exit {
        /// `shutdown` came before `exit`, as the protocol wants.
        clean: bool,
    },
}

/// The state of one session.
pub struct Server {
    encoding: Encoding,
    snippets: bool,
    /// Where diagnostics link to, from `initializationOptions.diagnosticsUrl`.
    docs: diagnostics::DocsPage,
    documents: HashMap<Uri, Document>,
    /// The last `fsm.toml` problem shown for each document, so an edit does
    /// not show it again.
    config_errors: HashMap<Uri, String>,
    shut_down: bool,
}

impl Server {
    /// A server for a client that initialized with `params`. A bad
    /// `initializationOptions.diagnosticsUrl` is logged and ignored.
    pub fn new(params: &InitializeParams) -> Server {
        let snippets = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        let docs = diagnostics::DocsPage::from_options(params.initialization_options.as_ref())
            .unwrap_or_else(|error| {
                log(&error);
                diagnostics::DocsPage::default()
            });
        Server {
            encoding: Encoding::negotiate(params),
            snippets,
            docs,
            documents: HashMap::new(),
            config_errors: HashMap::new(),
            shut_down: false,
        }
    }

    /// What the server can do.
    pub fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            position_encoding: Some(self.encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            })),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            rename_provider: Some(OneOf::Right(RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: WorkDoneProgressOptions::default(),
            })),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![">".into(), "[".into(), "(".into(), ",".into()]),
                ..CompletionOptions::default()
            }),
            document_formatting_provider: Some(OneOf::Left(true)),
            document_symbol_provider: Some(OneOf::Left(true)),
            folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
            code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
                code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                ..CodeActionOptions::default()
            })),
            semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                SemanticTokensOptions {
                    legend: semantic_tokens::legend(),
                    full: Some(SemanticTokensFullOptions::Bool(true)),
                    ..SemanticTokensOptions::default()
                },
            )),
            ..ServerCapabilities::default()
        }
    }

    /// Handle one message from the client, pushing what to send to `out`.
    pub fn handle(&mut self, message: Message, out: &mut Vec<Message>) -> Flow {
        match message {
            Message::Request(request) => {
                let response = self.request(request);
                out.push(response.into());
                Flow::Continue
            }
            Message::Notification(n) if n.method == notif::Exit::METHOD => Flow::Exit {
                clean: self.shut_down,
            },
            Message::Notification(n) => {
                let method = n.method.clone();
                if catch_unwind(AssertUnwindSafe(|| self.notification(n, out))).is_err() {
                    log(&format!(
                        "handling `{method}` panicked; the notification was ignored"
                    ));
                }
                Flow::Continue
            }
            // The server sends no requests, so expects no responses.
            Message::Response(_) => Flow::Continue,
        }
    }

    /// Called when no message is waiting: publish the diagnostics of every
    /// document changed since they were last published. A burst of edits
    /// is checked once, after its last change.
    pub fn idle(&mut self, out: &mut Vec<Message>) {
        let stale: Vec<Uri> = self
            .documents
            .iter()
            .filter(|(_, d)| d.published != Some(d.version) || d.is_stale())
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in stale {
            self.analyze(&uri, out);
            let Some(document) = self.documents.get_mut(&uri) else {
                continue;
            };
            let Some(analysis) = document.analysis() else {
                continue;
            };
            let params = PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: analysis
                    .diagnostics
                    .iter()
                    .map(|d| diagnostics::to_lsp(document, &uri, d, &self.docs))
                    .collect(),
                version: Some(document.version),
            };
            document.published = Some(document.version);
            out.push(Notification::new(notif::PublishDiagnostics::METHOD.into(), params).into());
        }
    }

    /// Make the analysis of `uri`'s current text, if it has none.
    fn analyze(&mut self, uri: &Uri, out: &mut Vec<Message>) {
        if !self.documents.get(uri).is_some_and(Document::is_stale) {
            return;
        }
        let lints = self.lints(uri, out);
        let Some(document) = self.documents.get_mut(uri) else {
            return;
        };
        let analysis = catch_unwind(AssertUnwindSafe(|| Analysis::new(document.text(), &lints)))
            .unwrap_or_else(|_| {
                log(&format!(
                    "checking {} panicked; showing it as empty",
                    uri.as_str()
                ));
                Analysis::new("", &lints)
            });
        document.set_analysis(analysis);
    }

    /// The lint options of `fsm.toml` for `uri`, read afresh (a few system
    /// calls) so that edits to it apply without a restart. A broken file is
    /// reported once per problem, and ignored.
    fn lints(&mut self, uri: &Uri, out: &mut Vec<Message>) -> LintOptions {
        let Some(dir) = file_path(uri).and_then(|p| p.parent().map(PathBuf::from)) else {
            return LintOptions::default();
        };
        match config::lints_for(&dir) {
            Ok((_, lints)) => {
                self.config_errors.remove(uri);
                lints
            }
            Err(error) => {
                if self.config_errors.get(uri) != Some(&error) {
                    log(&error);
                    let params = ShowMessageParams {
                        typ: MessageType::WARNING,
                        message: format!("fsmc: {error}; using the default lint options"),
                    };
                    out.push(Notification::new(notif::ShowMessage::METHOD.into(), params).into());
                    self.config_errors.insert(uri.clone(), error);
                }
                LintOptions::default()
            }
        }
    }

    fn notification(&mut self, n: Notification, out: &mut Vec<Message>) {
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                let Some(p) = params::<DidOpenTextDocumentParams>(n.params) else {
                    return;
                };
                let document = Document::new(p.text_document.text, p.text_document.version, self.encoding);
                self.documents.insert(p.text_document.uri, document);
            }
            notif::DidChangeTextDocument::METHOD => {
                let Some(p) = params::<DidChangeTextDocumentParams>(n.params) else {
                    return;
                };
                match self.documents.get_mut(&p.text_document.uri) {
                    Some(document) => document.apply(p.text_document.version, p.content_changes),
                    None => log(&format!(
                        "change to {}, which is not open",
                        p.text_document.uri.as_str()
                    )),
                }
            }
            notif::DidCloseTextDocument::METHOD => {
                let Some(p) = params::<DidCloseTextDocumentParams>(n.params) else {
                    return;
                };
                self.documents.remove(&p.text_document.uri);
                self.config_errors.remove(&p.text_document.uri);
                // A closed file's problems leave the problem list.
                let clear = PublishDiagnosticsParams {
                    uri: p.text_document.uri,
                    diagnostics: Vec::new(),
                    version: None,
                };
                out.push(Notification::new(notif::PublishDiagnostics::METHOD.into(), clear).into());
            }
            // Saving may have changed an `fsm.toml`: check everything again.
            notif::DidSaveTextDocument::METHOD | notif::DidChangeWatchedFiles::METHOD => {
                self.documents.values_mut().for_each(Document::invalidate);
            }
            _ => {}
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        if self.shut_down {
            return error(
                id,
                ErrorCode::InvalidRequest,
                "the server is shutting down".into(),
            );
        }
        if method == req::Shutdown::METHOD {
            self.shut_down = true;
            return Response::new_ok(id, ());
        }
        // Requests see the current text: analyze what changed first.
        let mut notes = Vec::new();
        let uris: Vec<Uri> = self.documents.keys().cloned().collect();
        for uri in &uris {
            self.analyze(uri, &mut notes);
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| self.dispatch(&method, params)));
        match outcome {
            Ok(result) => Response {
                id,
                response_result: result,
            },
            Err(_) => {
                log(&format!("`{method}` panicked; answered with an error"));
                error(
                    id,
                    ErrorCode::InternalError,
                    format!("fsmc lsp: `{method}` failed"),
                )
            }
        }
    }

    fn dispatch(&self, method: &str, params: Value) -> Result<Value, ResponseError> {
        match method {
            req::HoverRequest::METHOD => self.on::<req::HoverRequest>(params, |s, p| {
                let (d, a, offset) = s.at(&p.text_document_position_params)?;
                Ok(hover::hover(d, a, offset))
            }),
            req::GotoDefinition::METHOD => self.on::<req::GotoDefinition>(params, |s, p| {
                let (d, a, offset) = s.at(&p.text_document_position_params)?;
                let uri = &p.text_document_position_params.text_document.uri;
                Ok(navigation::definition(d, a, uri, offset).map(GotoDefinitionResponse::Scalar))
            }),
            req::References::METHOD => self.on::<req::References>(params, |s, p| {
                let (d, a, offset) = s.at(&p.text_document_position)?;
                let uri = &p.text_document_position.text_document.uri;
                Ok(navigation::references(
                    d,
                    a,
                    uri,
                    offset,
                    p.context.include_declaration,
                ))
            }),
            req::PrepareRenameRequest::METHOD => self.on::<req::PrepareRenameRequest>(params, |s, p| {
                let (d, a, offset) = s.at(&p)?;
                rename::prepare(d, a, offset).map(Some).map_err(failed)
            }),
            req::Rename::METHOD => self.on::<req::Rename>(params, |s, p| {
                let (d, a, offset) = s.at(&p.text_document_position)?;
                let uri = &p.text_document_position.text_document.uri;
                rename::rename(d, a, uri, offset, &p.new_name)
                    .map(Some)
                    .map_err(failed)
            }),
            req::Completion::METHOD => self.on::<req::Completion>(params, |s, p| {
                let (d, _, offset) = s.at(&p.text_document_position)?;
                let items = completion::complete(d.text(), offset, d.known_names(), s.snippets);
                Ok(Some(CompletionResponse::Array(items)))
            }),
            req::Formatting::METHOD => self.on::<req::Formatting>(params, |s, p| {
                let (d, _) = s.document(&p.text_document.uri)?;
                Ok(Some(format::format(d)))
            }),
            req::DocumentSymbolRequest::METHOD => self.on::<req::DocumentSymbolRequest>(params, |s, p| {
                let (d, a) = s.document(&p.text_document.uri)?;
                Ok(Some(DocumentSymbolResponse::Nested(symbols::document_symbols(
                    d, a,
                ))))
            }),
            req::FoldingRangeRequest::METHOD => self.on::<req::FoldingRangeRequest>(params, |s, p| {
                let (d, a) = s.document(&p.text_document.uri)?;
                Ok(Some(folding::folding_ranges(d, a)))
            }),
            req::SemanticTokensFullRequest::METHOD => {
                self.on::<req::SemanticTokensFullRequest>(params, |s, p| {
                    let (d, a) = s.document(&p.text_document.uri)?;
                    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
                        result_id: None,
                        data: semantic_tokens::tokens(d, a),
                    })))
                })
            }
            req::CodeActionRequest::METHOD => self.on::<req::CodeActionRequest>(params, |s, p| {
                let (d, a) = s.document(&p.text_document.uri)?;
                let range = d.span(p.range);
                Ok(Some(actions::quick_fixes(
                    d,
                    a,
                    &p.text_document.uri,
                    range,
                    &s.docs,
                )))
            }),
            _ => Err(ResponseError {
                code: ErrorCode::MethodNotFound as i32,
                message: format!("fsmc lsp does not handle `{method}`"),
                data: None,
            }),
        }
    }

    /// Decode the params of request `R`, run `handler`, encode its result.
    fn on<R: req::Request>(
        &self,
        params: Value,
        handler: impl FnOnce(&Self, R::Params) -> Result<R::Result, ResponseError>,
    ) -> Result<Value, ResponseError> {
        let params: R::Params = serde_json::from_value(params).map_err(|e| ResponseError {
            code: ErrorCode::InvalidParams as i32,
            message: format!("invalid params for `{}`: {e}", R::METHOD),
            data: None,
        })?;
        let result = handler(self, params)?;
        serde_json::to_value(result).map_err(|e| ResponseError {
            code: ErrorCode::InternalError as i32,
            message: e.to_string(),
            data: None,
        })
    }

    /// The open document `uri` and its analysis.
    fn document(&self, uri: &Uri) -> Result<(&Document, &Analysis), ResponseError> {
        self.documents
            .get(uri)
            .and_then(|d| Some((d, d.analysis()?)))
            .ok_or_else(|| ResponseError {
                code: ErrorCode::InvalidParams as i32,
                message: format!("{} is not open", uri.as_str()),
                data: None,
            })
    }

    /// The document, its analysis and the byte offset of a position in it.
    fn at(&self, p: &TextDocumentPositionParams) -> Result<(&Document, &Analysis, usize), ResponseError> {
        let (d, a) = self.document(&p.text_document.uri)?;
        Ok((d, a, d.offset(p.position)))
    }
}

fn params<P: serde::de::DeserializeOwned>(value: Value) -> Option<P> {
    serde_json::from_value(value)
        .map_err(|e| log(&format!("ignored a notification with invalid params: {e}")))
        .ok()
}

fn failed(message: String) -> ResponseError {
    ResponseError {
        code: ErrorCode::RequestFailed as i32,
        message,
        data: None,
    }
}

fn error(id: RequestId, code: ErrorCode, message: String) -> Response {
    Response::new_err(id, code as i32, message)
}

/// Log to stderr, which clients show as the server's log.
pub fn log(message: &str) {
    eprintln!("fsmc lsp: {message}");
}

/// The path of a `file:` URI.
fn file_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///path` or `file://localhost/path`.
    let path = &rest[rest.find('/')?..];
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                decoded.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, ..) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    let path = String::from_utf8(decoded).ok()?;
    // `file:///C:/x` on Windows.
    let path = match path.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() && cfg!(windows) => path[1..].to_string(),
        _ => path,
    };
    Some(PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        let uri: Uri = "file:///home/a%20b/m.fsm".parse().unwrap();
        assert_eq!(file_path(&uri), Some(PathBuf::from("/home/a b/m.fsm")));
        let uri: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(file_path(&uri), None);
    }
}
