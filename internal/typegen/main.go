// Command typegen writes the Go types of the Kubernetes built-in kinds that apikit serves
// (builtin/<group>/<version>/zz_generated.types.go) from the source of k8s.io/api, at the
// version this module requires. The types keep k8s.io/api's names, fields, doc comments and
// struct tags (json, protobuf with its field numbers, patchStrategy and patchMergeKey), so
// the wire formats, strategic merge keys and list types are k8s.io/api's; what they embed
// from apimachinery maps to apikit's own types (metav1.ObjectMeta to scheme.ObjectMeta,
// resource.Quantity to quantity.Quantity, ...). Defaulting and validation are not generated:
// they are written in apikit.
//
// Run it from the repository root after changing the kinds below or the k8s.io/api version:
//
//	go run ./internal/typegen
//
// TestGenerated_IsUpToDate fails when the committed files differ from its output.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// output is one package of apikit's built-in types and the kinds it holds.
type output struct {
	source string   // the k8s.io/api package read
	dir    string   // where the file is written, from the repository root
	alias  string   // how other generated packages import it
	roots  []string // the kinds (and their lists); every type they reach is written
	// handWritten are the types of the package written by hand (a reached type must not
	// be one of them: the generated one would clash).
	handWritten []string
}

// outputs are the packages written; a k8s.io/api package that a root reaches must be one
// of them.
var outputs = []output{
	{
		source: "k8s.io/api/apps/v1", dir: "builtin/apps/v1", alias: "appsv1",
		roots: []string{
			"Deployment", "DeploymentList", "StatefulSet", "StatefulSetList", "DaemonSet", "DaemonSetList",
			"ReplicaSet", "ReplicaSetList", "ControllerRevision", "ControllerRevisionList",
		},
	},
	{
		source: "k8s.io/api/core/v1", dir: "builtin/core/v1", alias: "corev1",
		roots: []string{
			"Pod", "PodList", "PodTemplate", "PodTemplateList", "Binding",
			"Service", "ServiceList", "Endpoints", "EndpointsList",
			"PersistentVolumeClaim", "PersistentVolumeClaimList", "PersistentVolume", "PersistentVolumeList",
			"Node", "NodeList", "ReplicationController", "ReplicationControllerList",
			"ResourceQuota", "ResourceQuotaList", "LimitRange", "LimitRangeList",
		},
		handWritten: []string{
			"Namespace", "NamespaceSpec", "NamespaceStatus", "NamespaceCondition", "NamespaceList",
			"ConfigMap", "ConfigMapList", "Secret", "SecretList", "ServiceAccount", "ServiceAccountList",
			"Event", "EventList", "EventSource", "EventSeries",
		},
	},
	{
		source: "k8s.io/api/batch/v1", dir: "builtin/batch/v1", alias: "batchv1",
		roots: []string{"Job", "JobList", "CronJob", "CronJobList"},
	},
	{
		// No kind of it is served: a Job's alpha spec.schedulingGroup reaches its types.
		source: "k8s.io/api/scheduling/v1alpha3", dir: "builtin/scheduling/v1alpha3", alias: "schedulingv1alpha3",
	},
	{
		source: "k8s.io/api/networking/v1", dir: "builtin/networking/v1", alias: "networkingv1",
		roots: []string{"Ingress", "IngressList", "IngressClass", "IngressClassList", "NetworkPolicy", "NetworkPolicyList"},
	},
	{
		source: "k8s.io/api/policy/v1", dir: "builtin/policy/v1", alias: "policyv1",
		roots: []string{"PodDisruptionBudget", "PodDisruptionBudgetList", "Eviction"},
	},
	{
		source: "k8s.io/api/autoscaling/v1", dir: "builtin/autoscaling/v1", alias: "autoscalingv1",
		roots: []string{"HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"},
	},
	{
		source: "k8s.io/api/autoscaling/v2", dir: "builtin/autoscaling/v2", alias: "autoscalingv2",
		roots: []string{"HorizontalPodAutoscaler", "HorizontalPodAutoscalerList"},
	},
	{
		source: "k8s.io/api/discovery/v1", dir: "builtin/discovery/v1", alias: "discoveryv1",
		roots: []string{"EndpointSlice", "EndpointSliceList"},
	},
	{
		source: "k8s.io/api/admissionregistration/v1", dir: "builtin/admissionregistration/v1", alias: "admissionregistrationv1",
		roots: []string{
			"ValidatingWebhookConfiguration", "ValidatingWebhookConfigurationList",
			"MutatingWebhookConfiguration", "MutatingWebhookConfigurationList",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyList",
			"ValidatingAdmissionPolicyBinding", "ValidatingAdmissionPolicyBindingList",
			"MutatingAdmissionPolicy", "MutatingAdmissionPolicyList",
			"MutatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBindingList",
		},
	},
}

// The packages generated code imports, by the name it uses.
const (
	importScheme   = "github.com/apikit-dev/apikit/scheme"
	importQuantity = "github.com/apikit-dev/apikit/quantity"
	importMeta     = "github.com/apikit-dev/apikit/builtin/meta/v1"
	modulePrefix   = "github.com/apikit-dev/apikit/"
)

// mapped are the apimachinery types the built-in types use, and apikit's types for them
// (package name, type name); "" as the package name means a predeclared type.
var mapped = map[string][2]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                     {"scheme", "Time"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                {"scheme", "MicroTime"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta":                 {"scheme", "TypeMeta"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta":               {"scheme", "ObjectMeta"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.ListMeta":                 {"scheme", "ListMeta"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.Condition":                {"scheme", "Condition"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.LabelSelector":            {"metav1", "LabelSelector"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.LabelSelectorRequirement": {"metav1", "LabelSelectorRequirement"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.DeleteOptions":            {"metav1", "DeleteOptions"},
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                 {"quantity", "Quantity"},
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":               {"scheme", "IntOrString"},
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                  {"scheme", "RawExtension"},
	"k8s.io/apimachinery/pkg/types.UID":                             {"scheme", "UID"},
	"k8s.io/apimachinery/pkg/apis/meta/v1.StatusReason":             {"scheme", "StatusReason"},
}

var importPaths = map[string]string{"scheme": importScheme, "quantity": importQuantity, "metav1": importMeta}

func main() {
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	files, err := generate()
	if err != nil {
		fmt.Fprintln(os.Stderr, "typegen:", err)
		os.Exit(1)
	}
	for name, src := range files {
		path := filepath.Join(*root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "typegen:", err)
			os.Exit(1)
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "typegen:", err)
			os.Exit(1)
		}
	}
}

// sourcePackage is a parsed k8s.io/api package.
type sourcePackage struct {
	path   string
	fset   *token.FileSet
	types  map[string]*typeDecl
	consts []*constDecl
}

type typeDecl struct {
	name string
	spec *ast.TypeSpec
	doc  *ast.CommentGroup
	file *ast.File
	pos  token.Pos
}

type constDecl struct {
	spec *ast.ValueSpec
	doc  *ast.CommentGroup
	typ  string // the named type of the constant
	pos  token.Pos
}

// generate returns the files to write, by path from the repository root.
func generate() (map[string][]byte, error) {
	byPath := map[string]*output{}
	for i := range outputs {
		byPath[outputs[i].source] = &outputs[i]
	}
	pkgs := map[string]*sourcePackage{}
	load := func(path string) (*sourcePackage, error) {
		if p := pkgs[path]; p != nil {
			return p, nil
		}
		p, err := parsePackage(path)
		if err != nil {
			return nil, err
		}
		pkgs[path] = p
		return p, nil
	}
	// Walk every type the roots reach, package by package.
	need := map[string]map[string]bool{}
	type item struct{ pkg, name string }
	var queue []item
	for _, o := range outputs {
		for _, r := range o.roots {
			queue = append(queue, item{o.source, r})
		}
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if need[it.pkg][it.name] {
			continue
		}
		o := byPath[it.pkg]
		if o == nil {
			return nil, fmt.Errorf("%s.%s is reached, but %s is not an output package", it.pkg, it.name, it.pkg)
		}
		if slices.Contains(o.handWritten, it.name) {
			return nil, fmt.Errorf("%s.%s is reached, but %s has it written by hand", it.pkg, it.name, o.dir)
		}
		p, err := load(it.pkg)
		if err != nil {
			return nil, err
		}
		td := p.types[it.name]
		if td == nil {
			return nil, fmt.Errorf("%s has no type %s", it.pkg, it.name)
		}
		if need[it.pkg] == nil {
			need[it.pkg] = map[string]bool{}
		}
		need[it.pkg][it.name] = true
		var walkErr error
		var walk func(e ast.Expr)
		walk = func(e ast.Expr) {
			switch x := e.(type) {
			case *ast.Ident:
				if p.types[x.Name] != nil {
					queue = append(queue, item{it.pkg, x.Name})
				}
			case *ast.StarExpr:
				walk(x.X)
			case *ast.ArrayType:
				walk(x.Elt)
			case *ast.MapType:
				walk(x.Key)
				walk(x.Value)
			case *ast.StructType:
				for _, fld := range x.Fields.List {
					walk(fld.Type)
				}
			case *ast.SelectorExpr:
				ip := importOf(td.file, x.X.(*ast.Ident).Name)
				full := ip + "." + x.Sel.Name
				if _, ok := mapped[full]; ok {
					return
				}
				if strings.HasPrefix(ip, "k8s.io/api/") {
					queue = append(queue, item{ip, x.Sel.Name})
					return
				}
				walkErr = fmt.Errorf("%s.%s uses %s, which has no apikit type", it.pkg, it.name, full)
			}
		}
		walk(td.spec.Type)
		if walkErr != nil {
			return nil, walkErr
		}
	}
	files := map[string][]byte{}
	atomic := map[string][]string{} // alias -> atomic types
	for _, o := range outputs {
		src, types, err := emit(&o, pkgs[o.source], need[o.source], byPath)
		if err != nil {
			return nil, err
		}
		files[filepath.Join(filepath.FromSlash(o.dir), "zz_generated.types.go")] = src
		atomic[o.alias] = types
	}
	src, err := emitAtomic(atomic)
	if err != nil {
		return nil, err
	}
	files[filepath.Join("builtin", "zz_generated.atomic.go")] = src
	return files, nil
}

// emitAtomic writes builtin's registration of the types k8s.io/api marks
// +structType=atomic: kube's OpenAPI gives their definitions x-kubernetes-map-type:
// atomic, so server-side apply owns such a value whole (a LocalObjectReference, a
// ConfigMapKeySelector). A marker on a type cannot travel as a struct tag, and a method
// would be promoted to the types that embed it.
func emitAtomic(atomic map[string][]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/typegen from the +structType=atomic markers of k8s.io/api; DO NOT EDIT.\n\n")
	b.WriteString("package builtin\n\nimport (\n")
	aliases := make([]string, 0, len(atomic))
	for a := range atomic {
		aliases = append(aliases, a)
	}
	sort.Strings(aliases)
	for _, a := range aliases {
		for _, o := range outputs {
			if o.alias == a && len(atomic[a]) > 0 {
				fmt.Fprintf(&b, "\t%s %q\n", a, modulePrefix+o.dir)
			}
		}
	}
	b.WriteString("\t\"github.com/apikit-dev/apikit/scheme\"\n\t\"github.com/apikit-dev/apikit/scheme/openapi\"\n)\n\n")
	b.WriteString("// registerGeneratedAtomicTypes marks the generated types that k8s.io/api marks\n// +structType=atomic as atomic in s's OpenAPI (and so for server-side apply).\n")
	b.WriteString("func registerGeneratedAtomicTypes(s *scheme.Scheme) {\n")
	for _, a := range aliases {
		for _, t := range atomic[a] {
			fmt.Fprintf(&b, "\topenapi.Customize[%s.%s](s, atomicStruct)\n", a, t)
		}
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// parsePackage parses the non-test Go files of a k8s.io/api package from the module cache.
func parsePackage(path string) (*sourcePackage, error) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", path, err)
	}
	dir := strings.TrimSpace(string(out))
	p := &sourcePackage{path: path, fset: token.NewFileSet(), types: map[string]*typeDecl{}}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(filepath.Base(name), "zz_generated") || strings.HasSuffix(name, ".pb.go") {
			continue
		}
		f, err := parser.ParseFile(p.fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch gd.Tok {
			case token.TYPE:
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && len(gd.Specs) == 1 {
						doc = gd.Doc
					}
					p.types[ts.Name.Name] = &typeDecl{name: ts.Name.Name, spec: ts, doc: doc, file: f, pos: ts.Pos()}
				}
			case token.CONST:
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					id, ok := vs.Type.(*ast.Ident)
					if !ok || len(vs.Values) != len(vs.Names) {
						continue
					}
					p.consts = append(p.consts, &constDecl{spec: vs, doc: vs.Doc, typ: id.Name, pos: vs.Pos()})
				}
			}
		}
	}
	return p, nil
}

// importOf returns the import path that name refers to in f.
func importOf(f *ast.File, name string) string {
	for _, is := range f.Imports {
		path, _ := strconv.Unquote(is.Path.Value)
		local := filepath.Base(path)
		if is.Name != nil {
			local = is.Name.Name
		}
		if local == name {
			return path
		}
	}
	return ""
}

// emit writes the file of one output package.
func emit(o *output, p *sourcePackage, need map[string]bool, byPath map[string]*output) ([]byte, []string, error) {
	var decls []*typeDecl
	for name := range need {
		decls = append(decls, p.types[name])
	}
	// Source order: the file's types read as k8s.io/api's do.
	sort.Slice(decls, func(i, j int) bool {
		pi, pj := p.fset.Position(decls[i].pos), p.fset.Position(decls[j].pos)
		if pi.Filename != pj.Filename {
			return pi.Filename < pj.Filename
		}
		return pi.Offset < pj.Offset
	})
	imports := map[string]string{} // local name -> path
	var body bytes.Buffer
	rw := &rewriter{imports: imports, byPath: byPath, self: o.source}
	var atomic []string
	for _, td := range decls {
		if markers(td.doc)["structType"] == "atomic" {
			atomic = append(atomic, td.name)
		}
		writeDoc(&body, td.doc, "")
		expr, err := rw.typeExpr(td.file, td.spec.Type, td.name)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(&body, "type %s %s\n\n", td.name, expr)
		var consts []*constDecl
		for _, c := range p.consts {
			if c.typ == td.name {
				consts = append(consts, c)
			}
		}
		if len(consts) > 0 {
			body.WriteString("const (\n")
			for _, c := range consts {
				writeDoc(&body, c.doc, "\t")
				var vb bytes.Buffer
				if err := printer.Fprint(&vb, token.NewFileSet(), c.spec.Values[0]); err != nil {
					return nil, nil, err
				}
				fmt.Fprintf(&body, "\t%s %s = %s\n", c.spec.Names[0].Name, c.typ, vb.String())
			}
			body.WriteString(")\n\n")
		}
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "// Code generated by internal/typegen from %s (the version of internal/typegen/go.mod); DO NOT EDIT.\n\n", o.source)
	fmt.Fprintf(&out, "package %s\n\n", filepath.Base(o.dir))
	if len(imports) > 0 {
		out.WriteString("import (\n")
		names := make([]string, 0, len(imports))
		for n := range imports {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&out, "\t%s %q\n", n, imports[n])
		}
		out.WriteString(")\n\n")
	}
	out.Write(body.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: formatting the generated file: %w", o.dir, err)
	}
	return src, atomic, nil
}

// writeDoc writes a doc comment without the +marker lines (they are generator
// directives, and what they say the tags say) and without upstream's TODO notes.
func writeDoc(w *bytes.Buffer, doc *ast.CommentGroup, indent string) {
	if doc == nil {
		return
	}
	lines := strings.Split(strings.TrimRight(doc.Text(), "\n"), "\n")
	var kept []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		// A marker line of a Go example inside the comment ("// +optional") goes too.
		code := strings.TrimSpace(strings.TrimPrefix(t, "//"))
		if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "TODO") || strings.HasPrefix(t, "//") && strings.HasPrefix(code, "+") {
			continue
		}
		kept = append(kept, l)
	}
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	for _, l := range kept {
		if l == "" {
			fmt.Fprintf(w, "%s//\n", indent)
		} else {
			fmt.Fprintf(w, "%s// %s\n", indent, l)
		}
	}
}

// markers returns the +name=value markers of a doc comment (the last of each name).
func markers(doc *ast.CommentGroup) map[string]string {
	m := map[string]string{}
	if doc == nil {
		return m
	}
	for _, l := range strings.Split(doc.Text(), "\n") {
		if name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "+"), "="); ok && strings.HasPrefix(strings.TrimSpace(l), "+") {
			m[name] = value
		}
	}
	return m
}

// listMapKeys returns the +listMapKey markers of a field, in order.
func listMapKeys(doc *ast.CommentGroup) []string {
	var keys []string
	if doc == nil {
		return nil
	}
	for _, l := range strings.Split(doc.Text(), "\n") {
		if k, ok := strings.CutPrefix(strings.TrimSpace(l), "+listMapKey="); ok {
			keys = append(keys, k)
		}
	}
	return keys
}

// withMarkerTags adds to a field's tag literal what its markers say of server-side
// apply (listType, listMapKeys, mapType), as the tags apikit's schema derivation reads.
func withMarkerTags(tag string, m map[string]string, keys []string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(tag, "`"), "`")
	if v := m["listType"]; v != "" && !strings.Contains(body, "listType:") {
		body += ` listType:"` + v + `"`
	}
	if len(keys) > 0 && !strings.Contains(body, "listMapKeys:") {
		body += ` listMapKeys:"` + strings.Join(keys, ",") + `"`
	}
	if v := m["mapType"]; v != "" && !strings.Contains(body, "mapType:") {
		body += ` mapType:"` + v + `"`
	}
	return "`" + body + "`"
}

// rewriter prints type expressions with apikit's types in place of apimachinery's.
type rewriter struct {
	imports map[string]string
	byPath  map[string]*output
	self    string
}

func (rw *rewriter) typeExpr(f *ast.File, e ast.Expr, owner string) (string, error) {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name, nil
	case *ast.StarExpr:
		s, err := rw.typeExpr(f, x.X, owner)
		return "*" + s, err
	case *ast.ArrayType:
		if x.Len != nil {
			return "", fmt.Errorf("%s: fixed-size arrays are not supported", owner)
		}
		s, err := rw.typeExpr(f, x.Elt, owner)
		return "[]" + s, err
	case *ast.MapType:
		k, err := rw.typeExpr(f, x.Key, owner)
		if err != nil {
			return "", err
		}
		v, err := rw.typeExpr(f, x.Value, owner)
		return "map[" + k + "]" + v, err
	case *ast.SelectorExpr:
		ip := importOf(f, x.X.(*ast.Ident).Name)
		if m, ok := mapped[ip+"."+x.Sel.Name]; ok {
			if m[0] == "" {
				return m[1], nil
			}
			rw.imports[m[0]] = importPaths[m[0]]
			return m[0] + "." + m[1], nil
		}
		o := rw.byPath[ip]
		if o == nil {
			return "", fmt.Errorf("%s: %s.%s has no apikit type", owner, ip, x.Sel.Name)
		}
		if ip == rw.self {
			return x.Sel.Name, nil
		}
		rw.imports[o.alias] = modulePrefix + o.dir
		return o.alias + "." + x.Sel.Name, nil
	case *ast.StructType:
		var b strings.Builder
		b.WriteString("struct {\n")
		for _, fld := range x.Fields.List {
			var doc bytes.Buffer
			writeDoc(&doc, fld.Doc, "\t")
			b.Write(doc.Bytes())
			t, err := rw.typeExpr(f, fld.Type, owner)
			if err != nil {
				return "", err
			}
			tag := ""
			if fld.Tag != nil {
				tag = " " + withMarkerTags(fld.Tag.Value, markers(fld.Doc), listMapKeys(fld.Doc))
			}
			if len(fld.Names) == 0 {
				if t == "scheme.TypeMeta" {
					// apikit's objects embed TypeMeta inline, as its other kinds do.
					tag = " `json:\",inline\"`"
				}
				fmt.Fprintf(&b, "\t%s%s\n", t, tag)
				continue
			}
			names := make([]string, len(fld.Names))
			for i, n := range fld.Names {
				names[i] = n.Name
			}
			fmt.Fprintf(&b, "\t%s %s%s\n", strings.Join(names, ", "), t, tag)
		}
		b.WriteString("}")
		return b.String(), nil
	}
	return "", fmt.Errorf("%s: unsupported type expression %T", owner, e)
}
