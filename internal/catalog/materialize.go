package catalog

// This file builds the public Resource and Edge values of a catalog's
// compact records when they are asked for. The callers hold c.mu.

// resource returns the Resource of record i, building it once.
func (c *Catalog) resource(i int32) *Resource {
	if c.mat == nil {
		c.mat = make([]*Resource, c.recs.len())
	}
	if r := c.mat[i]; r != nil {
		return r
	}
	r := c.build(i)
	c.mat[i] = r
	// Nothing reads a record's attributes but this: its parameters
	// hold them now.
	c.recs.at(i).ap = nil
	return r
}

// transient returns the Resource of record i without keeping it: the one
// built before if there is one, else a new one the catalog forgets.
func (c *Catalog) transient(i int32) *Resource {
	if c.mat != nil && c.mat[i] != nil {
		return c.mat[i]
	}
	return c.build(i)
}

// build builds the Resource of record i from its compact record.
func (c *Catalog) build(i int32) *Resource {
	rc := c.recs.at(i)
	typ := c.types[rc.typ]
	params := make(map[string]any, len(rc.attrs())+1)
	for _, a := range rc.attrs() {
		params[a.name] = a.val
	}
	if rc.is(fNameTitle) {
		if nv := c.namevars[rc.typ]; nv != "" {
			if _, set := params[nv]; !set {
				params[nv] = rc.title
			}
		}
	}
	r := &Resource{
		Type:    typ,
		Title:   rc.title,
		Params:  params,
		Pos:     pos(c.files, rc.pos),
		Tags:    tagsOf(rc, c.types, c.tagLists),
		Virtual: rc.is(fVirtual),
		ref:     formatRef(typ, rc.title),
	}
	if rc.cont >= 0 {
		r.Container = c.resource(rc.cont).Ref()
	}
	return r
}

// split builds the lists of resources and containers.
func (c *Catalog) split() {
	if c.resources != nil || c.containers != nil {
		return
	}
	c.resources = []*Resource{}
	c.containers = []*Resource{}
	for i := range c.recs.len() {
		r := c.resource(i)
		if c.isContainer(c.recs.at(i)) {
			c.containers = append(c.containers, r)
		} else {
			c.resources = append(c.resources, r)
		}
	}
}

// refOf is the reference of record i, built without its Resource.
func (c *Catalog) refOf(i int32) string {
	if c.mat != nil && c.mat[i] != nil {
		return c.mat[i].ref
	}
	r := c.recs.at(i)
	return formatRef(c.types[r.typ], r.title)
}

// edge builds the Edge of e, its ends named by ref.
func (c *Catalog) edge(e edge, ref func(int32) string) Edge {
	return Edge{From: ref(e.from), To: ref(e.to), Kind: edgeKinds[e.kind], Via: vias[e.via], Pos: pos(c.files, e.pos)}
}

// sharedRef is the reference of record i, from its Resource: edges built
// with it share their strings with the resources.
func (c *Catalog) sharedRef(i int32) string { return c.resource(i).Ref() }

// materializeEdges builds the list of every edge: each record's
// containment in its container, then the rest in order.
func (c *Catalog) materializeEdges() []Edge {
	out := make([]Edge, 0, int(c.recs.len())+len(c.edges))
	for i := range c.recs.len() {
		if rc := c.recs.at(i); rc.cont >= 0 && !rc.is(fVirtual) {
			r := c.resource(i)
			out = append(out, Edge{From: c.resource(rc.cont).Ref(), To: r.Ref(), Kind: Contain, Via: "contain", Pos: r.Pos})
		}
	}
	for _, e := range c.edges {
		out = append(out, c.edge(e, c.sharedRef))
	}
	return out
}
