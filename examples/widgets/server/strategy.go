package server

import (
	"context"

	"github.com/apikit-dev/apikit/examples/widgets/api"
	"github.com/apikit-dev/apikit/examples/widgets/api/hub"
	"github.com/apikit-dev/apikit/registry"
	"github.com/apikit-dev/apikit/scheme"
	"github.com/apikit-dev/apikit/validation"
)

// Strategies returns the rest strategies of the widget API: widgets and warehouses are
// validated with api.ValidateWidget, api.ValidateWidgetUpdate, api.ValidateWarehouse and
// api.ValidateWarehouseUpdate. The hooks receive hub (internal) objects, and
// registry.StrategyFor lets them say so in their signatures.
func Strategies() map[scheme.GroupResource]registry.Strategy {
	return map[scheme.GroupResource]registry.Strategy{
		{Group: api.Group, Resource: "widgets"}:    WidgetStrategy,
		{Group: api.Group, Resource: "warehouses"}: WarehouseStrategy,
	}
}

// WidgetStrategy validates Widgets.
var WidgetStrategy = registry.StrategyFor[*hub.Widget]{
	Validate: func(_ context.Context, w *hub.Widget) validation.ErrorList { return api.ValidateWidget(w) },
	ValidateUpdate: func(_ context.Context, w, old *hub.Widget) validation.ErrorList {
		return api.ValidateWidgetUpdate(w, old)
	},
}

// WarehouseStrategy validates Warehouses.
var WarehouseStrategy = registry.StrategyFor[*hub.Warehouse]{
	Validate: func(_ context.Context, w *hub.Warehouse) validation.ErrorList { return api.ValidateWarehouse(w) },
	ValidateUpdate: func(_ context.Context, w, old *hub.Warehouse) validation.ErrorList {
		return api.ValidateWarehouseUpdate(w, old)
	},
}
