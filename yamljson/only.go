package yamljson

// Only returns the one document of docs that is not empty, nil when all
// are; when there are more, it returns the first and the start line of
// the second, else 0: for files that hold one document.
func Only(docs []Document) (doc *Document, second int) {
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		if doc != nil {
			return doc, docs[i].StartLine
		}
		doc = &docs[i]
	}
	return doc, 0
}
