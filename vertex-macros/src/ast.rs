//! The parsed model of a vertex program: which module items play which role.

use syn::{Item, ItemConst, ItemFn, ItemMod, ItemStruct, ItemType};

use crate::attr::Attrs;
use crate::ctxt::Ctxt;

/// A `#[vertex_program]` module, split into its roles.
pub struct Program {
    pub module: ItemMod,
    pub attrs: Attrs,
    pub state: Option<ItemType>,
    pub weight: Option<ItemType>,
    pub init: Option<ItemFn>,
    pub relax: Option<ItemFn>,
    pub combine: Option<ItemFn>,
    pub priority: Option<ItemFn>,
    /// Gather/apply programs.
    pub msg: Option<ItemType>,
    pub acc: Option<ItemType>,
    pub emit: Option<ItemFn>,
    pub gather: Option<ItemFn>,
    pub identity: Option<ItemFn>,
    pub apply: Option<ItemFn>,
    pub active: Option<ItemFn>,
    pub accepts: Option<ItemFn>,
    pub level: Option<ItemFn>,
    pub reduce: Option<ItemFn>,
    pub max_rounds: Option<ItemConst>,
    pub tolerance: Option<ItemConst>,
    /// Intersection programs.
    pub common: Option<ItemFn>,
}

impl Program {
    /// Reads the roles out of the module. Structural problems (not a module, no
    /// body) are reported here; everything else is left to `check`.
    pub fn from_item(cx: &Ctxt, attrs: Attrs, item: Item) -> Option<Program> {
        let module = match item {
            Item::Mod(m) => m,
            other => {
                cx.error_spanned_by(
                    &other,
                    "#[vertex_program] goes on a module: `mod my_program { type State = ..; fn init(..); fn relax(..) }`",
                );
                return None;
            }
        };
        let Some((_, items)) = &module.content else {
            cx.error_spanned_by(
                &module,
                "#[vertex_program] needs the module's items inline (`mod name { ... }`), not in another file",
            );
            return None;
        };
        let mut p = Program {
            module: module.clone(),
            attrs,
            state: None,
            weight: None,
            init: None,
            relax: None,
            combine: None,
            priority: None,
            msg: None,
            acc: None,
            emit: None,
            gather: None,
            identity: None,
            apply: None,
            active: None,
            accepts: None,
            level: None,
            reduce: None,
            max_rounds: None,
            tolerance: None,
            common: None,
        };
        for item in items {
            match item {
                Item::Type(t) if t.ident == "State" => p.state = Some(t.clone()),
                // A struct named for its role stands for `type Role = Role;`.
                Item::Struct(s) if s.ident == "State" => p.state = Some(alias_of(s)),
                Item::Struct(s) if s.ident == "Msg" => p.msg = Some(alias_of(s)),
                Item::Struct(s) if s.ident == "Acc" => p.acc = Some(alias_of(s)),
                Item::Struct(s) if s.ident == "Weight" => p.weight = Some(alias_of(s)),
                Item::Type(t) if t.ident == "Weight" => p.weight = Some(t.clone()),
                Item::Fn(f) if f.sig.ident == "init" => p.init = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "relax" => p.relax = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "combine" => p.combine = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "priority" => p.priority = Some(f.clone()),
                Item::Type(t) if t.ident == "Msg" => p.msg = Some(t.clone()),
                Item::Type(t) if t.ident == "Acc" => p.acc = Some(t.clone()),
                Item::Fn(f) if f.sig.ident == "emit" => p.emit = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "gather" => p.gather = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "identity" => p.identity = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "apply" => p.apply = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "active" => p.active = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "accepts" => p.accepts = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "level" => p.level = Some(f.clone()),
                Item::Fn(f) if f.sig.ident == "reduce" => p.reduce = Some(f.clone()),
                Item::Const(c) if c.ident == "MAX_ROUNDS" => p.max_rounds = Some(c.clone()),
                Item::Const(c) if c.ident == "TOLERANCE" => p.tolerance = Some(c.clone()),
                Item::Fn(f) if f.sig.ident == "common" => p.common = Some(f.clone()),
                _ => {}
            }
        }
        Some(p)
    }

    /// The module's name (used to name GPU kernels).
    pub fn name(&self) -> &syn::Ident {
        &self.module.ident
    }

    /// The module's items.
    pub fn items(&self) -> &[Item] {
        self.module.content.as_ref().map_or(&[], |c| &c.1)
    }
}

/// `type Name = Name;` for a role's struct `pub struct Name { .. }` written in
/// the module (`State`, `Msg`, `Acc`), spanned at the struct's name so that the
/// checks' messages about the type point there.
fn alias_of(s: &ItemStruct) -> ItemType {
    let ident = &s.ident;
    syn::parse_quote_spanned!(ident.span() => pub type #ident = #ident;)
}
