package server

import (
	"context"
	"fmt"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/rest"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Strategies returns the rest strategies of the widget API: widgets and warehouses are
// validated with api.ValidateWidget, api.ValidateWidgetUpdate, api.ValidateWarehouse and
// api.ValidateWarehouseUpdate on their hub (internal) objects.
func Strategies() map[scheme.GroupResource]rest.Strategy {
	return map[scheme.GroupResource]rest.Strategy{
		{Group: api.Group, Resource: "widgets"}:    WidgetStrategy{},
		{Group: api.Group, Resource: "warehouses"}: WarehouseStrategy{},
	}
}

// WidgetStrategy validates Widgets (rest.CreateValidator, rest.UpdateValidator).
type WidgetStrategy struct{}

// Validate checks a new Widget with api.ValidateWidget.
func (WidgetStrategy) Validate(_ context.Context, obj scheme.Object) validation.ErrorList {
	w, ok := obj.(*hub.Widget)
	if !ok {
		return wrongType(obj, w)
	}
	return api.ValidateWidget(w)
}

// ValidateUpdate checks an update of a Widget with api.ValidateWidgetUpdate.
func (WidgetStrategy) ValidateUpdate(_ context.Context, obj, old scheme.Object) validation.ErrorList {
	w, ok := obj.(*hub.Widget)
	if !ok {
		return wrongType(obj, w)
	}
	o, ok := old.(*hub.Widget)
	if !ok {
		return wrongType(old, o)
	}
	return api.ValidateWidgetUpdate(w, o)
}

// WarehouseStrategy validates Warehouses (rest.CreateValidator, rest.UpdateValidator).
type WarehouseStrategy struct{}

// Validate checks a new Warehouse with api.ValidateWarehouse.
func (WarehouseStrategy) Validate(_ context.Context, obj scheme.Object) validation.ErrorList {
	w, ok := obj.(*hub.Warehouse)
	if !ok {
		return wrongType(obj, w)
	}
	return api.ValidateWarehouse(w)
}

// ValidateUpdate checks an update of a Warehouse with api.ValidateWarehouseUpdate.
func (WarehouseStrategy) ValidateUpdate(_ context.Context, obj, old scheme.Object) validation.ErrorList {
	w, ok := obj.(*hub.Warehouse)
	if !ok {
		return wrongType(obj, w)
	}
	o, ok := old.(*hub.Warehouse)
	if !ok {
		return wrongType(old, o)
	}
	return api.ValidateWarehouseUpdate(w, o)
}

// wrongType reports an object that is not the hub type the strategy expects, a wiring
// error of the server rather than of the client.
func wrongType[T any](got scheme.Object, want T) validation.ErrorList {
	return validation.ErrorList{validation.InternalError(nil, fmt.Errorf("expected %T, got %T", want, got))}
}
