//! Expansion: `SceneComponent` for the struct, naming only `::rota::__private::scene` paths.
//!
//! ```text
//! impl SceneComponent for Position {
//!     const KEY = "eco.Position";
//!     const FIELDS = &[FieldInfo { id: 1, name: "x", ty: <f32 as SceneField>::TYPE }, ..];
//!     const RETIRED = &[3];
//!     fn save_fields(&self, out) { out.field(1, &self.x)?; .. }
//!     fn load_fields(input) { Ok(Position { x: input.field(1)?, .. }) }
//! }
//! ```

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::parse::Model;
use super::validate::Valid;

pub(crate) fn expand(model: &Model, valid: &Valid) -> TokenStream {
    let ident = &model.ident;
    let key = &valid.key;
    let scene = quote!(::rota::__private::scene);
    let mut infos = Vec::new();
    let mut saves = Vec::new();
    let mut loads = Vec::new();
    for field in &model.fields {
        let Some((id, _)) = &field.id else { continue };
        let (member, name, ty) = (&field.member, &field.name, &field.ty);
        // Spanned at the type, so an unsupported field type is reported there.
        let field_ty = quote_spanned!(ty.span()=> <#ty as #scene::SceneField>);
        infos.push(quote! {
            #scene::FieldInfo { id: #id, name: #name, ty: #field_ty::TYPE }
        });
        saves.push(quote!(out.field::<#ty>(#id, &self.#member)?;));
        loads.push(quote!(#member: input.field::<#ty>(#id)?,));
    }
    let retired = model.retired.iter().map(|(id, _)| id);
    quote! {
        #[automatically_derived]
        impl #scene::SceneComponent for #ident {
            const KEY: &'static str = #key;
            const FIELDS: &'static [#scene::FieldInfo] = &[#(#infos),*];
            const RETIRED: &'static [u32] = &[#(#retired),*];
            fn save_fields(
                &self,
                out: &mut #scene::FieldsOut<'_, '_>,
            ) -> ::core::result::Result<(), #scene::SaveError> {
                #(#saves)*
                ::core::result::Result::Ok(())
            }
            fn load_fields(
                input: &mut #scene::FieldsIn<'_>,
            ) -> ::core::result::Result<Self, #scene::LoadError> {
                let _ = &input;
                ::core::result::Result::Ok(#ident { #(#loads)* })
            }
        }
    }
}
