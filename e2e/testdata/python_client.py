"""Drives Widgets on an apikit server with the official Kubernetes Python client.

Usage: python3 python_client.py KUBECONFIG NAMESPACE
Prints one JSON document of observations; the Go test (python_client_test.go) checks them.
"""
import json
import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
from kubernetes.dynamic import DynamicClient

G, V, P = "toys.example.com", "v1", "widgets"


def status_of(exc):
    body = json.loads(exc.body)
    return {"status": exc.status, "kind": body.get("kind"), "reason": body.get("reason"),
            "message": body.get("message")}


def main():
    kubeconfig, ns = sys.argv[1], sys.argv[2]
    config.load_kube_config(config_file=kubeconfig)
    api = client.CustomObjectsApi()
    out = {}

    def widget(name, color, labels):
        return {"apiVersion": "toys.example.com/v1", "kind": "Widget",
                "metadata": {"name": name, "labels": labels},
                "spec": {"color": color, "replicas": 2}}

    created = api.create_namespaced_custom_object(G, V, ns, P, widget("py1", "red", {"app": "py"}))
    out["created"] = {"name": created["metadata"]["name"], "uid": created["metadata"].get("uid", ""),
                      "rv": created["metadata"].get("resourceVersion", ""), "generation": created["metadata"].get("generation")}
    api.create_namespaced_custom_object(G, V, ns, P, widget("other", "green", {"app": "other"}))

    got = api.get_namespaced_custom_object(G, V, ns, P, "py1")
    out["got_color"] = got["spec"]["color"]

    listed = api.list_namespaced_custom_object(G, V, ns, P, label_selector="app=py")
    out["listed"] = [i["metadata"]["name"] for i in listed["items"]]
    out["list_kind"] = listed["kind"]
    list_rv = listed["metadata"]["resourceVersion"]

    # Optimistic concurrency: a replace with the stale resourceVersion is a Conflict.
    got["spec"]["color"] = "blue"
    replaced = api.replace_namespaced_custom_object(G, V, ns, P, "py1", got)
    out["replaced_color"] = replaced["spec"]["color"]
    try:
        api.replace_namespaced_custom_object(G, V, ns, P, "py1", got)
        out["stale_replace"] = "accepted"
    except ApiException as e:
        out["stale_replace"] = status_of(e)

    patched = api.patch_namespaced_custom_object(G, V, ns, P, "py1", {"spec": {"color": "green"}})
    out["patched_color"] = patched["spec"]["color"]

    status = api.patch_namespaced_custom_object_status(G, V, ns, P, "py1", {"status": {"phase": "Ready"}})
    out["status_phase"] = status.get("status", {}).get("phase")

    try:
        api.get_namespaced_custom_object(G, V, ns, P, "missing")
        out["missing"] = "found"
    except ApiException as e:
        out["missing"] = status_of(e)

    try:
        api.create_namespaced_custom_object(G, V, ns, P, widget("Not_A_Name", "red", {}))
        out["invalid"] = "accepted"
    except ApiException as e:
        out["invalid"] = status_of(e)

    # A watch from the list's resourceVersion sees what came after it.
    api.create_namespaced_custom_object(G, V, ns, P, widget("py2", "red", {"app": "py"}))
    events = []
    w = watch.Watch()
    for ev in w.stream(api.list_namespaced_custom_object, G, V, ns, P, label_selector="app=py",
                       resource_version=list_rv, timeout_seconds=20):
        events.append([ev["type"], ev["object"]["metadata"]["name"]])
        if ev["object"]["metadata"]["name"] == "py2":
            w.stop()
    out["events"] = events

    # The dynamic client finds the kind through discovery.
    dyn = DynamicClient(client.ApiClient())
    widgets = dyn.resources.get(api_version="toys.example.com/v1", kind="Widget")
    out["dynamic_names"] = sorted(i.metadata.name for i in widgets.get(namespace=ns).items)

    deleted = api.delete_namespaced_custom_object(G, V, ns, P, "py1")
    out["deleted"] = [deleted.get("kind"), deleted.get("status"), deleted.get("details", {}).get("name")]
    try:
        api.get_namespaced_custom_object(G, V, ns, P, "py1")
        out["after_delete"] = "found"
    except ApiException as e:
        out["after_delete"] = e.status

    print(json.dumps(out))


if __name__ == "__main__":
    main()
