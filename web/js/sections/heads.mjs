// Chapter skeleton (issue 15): replaced by the section's real module.
export async function mount(root, ctx) {
  root.append(ctx.tNode('heads.lead'));
}
